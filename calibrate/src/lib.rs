//! Offline calibration of the gate (DESIGN section 9): a grid search over the five
//! weights and the two thresholds on the calibration split of the episode suite.
//!
//! Each grid point is scored by `J = mean(TSR) - l1 * T_rec / T_max - l2 * zero_yield
//! - l3 * tokens / 1000` ([`objective`]). Points that break the weight hierarchy or
//! `theta_low < theta_high` are skipped and counted ([`grid`]).
//!
//! **Why it is fast** ([`eval`]): an episode's trajectory depends on the gate only
//! through the decisions it takes, and the gate's inputs (features and rule context)
//! at each decision depend only on the decisions before it. So once an episode has been
//! simulated, its sequence of gate inputs is known; for a new point the evaluator
//! replays those inputs through the new gate, and if every decision (and local action)
//! comes out the same, the episode would follow the very same trajectory: its metrics
//! are reused without simulating. Only points that change some decision on the way
//! simulate again, and each new trajectory joins the cache. A test checks the fast path
//! against simulating every point.
//!
//! **Resumable** ([`run`]): every finished point is appended to `points.jsonl` at once;
//! a rerun reads that file and evaluates only the missing points, so an interrupted run
//! loses nothing and counts nothing twice; it resumes only results computed with the same
//! inputs ([`resume`]). [`report`] writes the tables and plots, each replacing its
//! previous file whole.

pub mod eval;
pub mod grid;
pub mod kitchen;
pub mod objective;
pub mod perturb;
pub mod report;
pub mod resume;
pub mod run;

pub use eval::{Evaluator, PointMetrics};
pub use grid::{Grid, GridError, Point};
pub use objective::Objective;
pub use perturb::{PerturbRow, Perturbation, perturb};
pub use run::{CalibrateError, Calibration, SuiteError, calibrate};
