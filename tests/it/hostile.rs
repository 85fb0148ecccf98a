//! Hostile and unlucky input (issue 19): whatever a file, a chat line, a socket, a
//! signal or a server sends, gatecrew answers with a clear error or a clean result, in
//! bounded memory and time, and keeps what it had already written. The files of the
//! bad-input corpus (`tests/bad_input`) cover the plain errors; these tests cover what
//! needs more than one file to show.

mod arith;
mod bounds;
mod escaped;
mod faults;
mod files;
mod memory;
mod output;
mod resume;
mod shown;
mod signals;
mod written;
mod ws;
