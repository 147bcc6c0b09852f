//! tetris-lab's plumbing, used by every other crate of the workspace: names and "did you
//! mean"; the upper bounds on every count a user gives; Ctrl-C, SIGTERM and SIGHUP as a
//! request to stop; the checksum of saved states; atomic files, run folders and
//! manifests, progress bars, statistics, number formatting, the thread pool.

pub mod checksum;
pub mod interrupt;
pub mod limits;
pub mod names;
pub mod support;
