//! Empty: the evaluation is `tests/gaps.rs`.
