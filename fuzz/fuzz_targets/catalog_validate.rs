//! Fuzz target: the catalog loader (`yaml::from_multi_doc_str`, what `olm::catalog::load_dir` reads each file
//! with) and `catalog validate` (`olm::catalog::validate`, the CRD upgrade rules along its edges, then the graph
//! renderers) on arbitrary text.
#![no_main]

use kubesmith::olm::catalog;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(docs) = kubesmith::yaml::from_multi_doc_str(text) {
        let (packages, _findings) = catalog::validate(&docs);
        let _ = kubesmith::olm::upgrade::check_catalog(&packages, kubesmith::olm::upgrade::Options::default());
        let _ = catalog::graph_text(&packages);
        let _ = catalog::graph_mermaid(&packages);
    }
});
