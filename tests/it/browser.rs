//! End to end in headless Chromium, driven through chromedriver's WebDriver HTTP API:
//! during a run the page shows the bots, a board thread from REQUEST to CONFIRM, the
//! progress reaching 100% and the metrics and log at the end; a replay stepped to a
//! tick shows that tick's state, metrics and log; its markers, keys and URL move it
//! ([`explain`], which also shows flatcomm's chat and a crew of 40).
//!
//! Needs Debian's `chromium` and `chromium-driver`, which the test command
//! (`scripts/test`) installs when they are missing; without them the tests fail. With
//! `GATECREW_SCREENSHOTS=DIR` the screenshots are saved there (docs/ holds the last ones).

mod driver;
mod explain;
mod follow;

use driver::{Browser, READ, browser, serve};
use follow::{check_page, wait_tick};
