//! Fuzz target: the marker scanner and argument parser (`kubesmith::markers::scan`) on arbitrary file text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = kubesmith::markers::scan(std::path::Path::new("src/lib.rs"), text);
});
