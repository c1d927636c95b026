//! Developer tasks for kubesmith (`cargo xtask <task>`).
fn main() {}
