//! The project and its analysis: [`project`] loads the prose, settings, rounds, claims and
//! checker facts at run time; [`inputs`] acquires and verifies every pinned input; [`summary`]
//! reads a round's results; [`analysis`] scopes, matches and divides; [`highlight`] picks the
//! article's pairs; [`evidence`] checks the pairs against their LoadGen logs and the claims at
//! their lines; [`across`] sets the article's round beside an earlier one; [`notebook`] reads
//! the walk-through notebook. It depends only on `ratios-base`.

// Templates name items by the crate's own name, whichever crate compiles them.
extern crate self as ratios_model;

pub mod across;
pub mod analysis;
pub mod evidence;
pub mod highlight;
pub mod inputs;
pub mod notebook;
pub mod project;
pub mod summary;
