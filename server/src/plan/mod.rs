//! Plan review: exit_plan diagrams, revisions and decisions.

pub mod diagram;
