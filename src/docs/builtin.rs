//! Kubernetes' own types inside a CRD schema (Condition, ResourceRequirements, Quantity, ...), recognised against
//! the k8s-openapi schema table the CRD generator inlines them from (`crate::crd::K8sTable`), and their links to
//! the Kubernetes API reference.

use std::collections::HashMap;

use serde_json::Value;

use crate::crd::K8sTable;

/// The built-in types of one Kubernetes version, by shape.
pub struct Builtins {
    /// An object type's key ([`object_key`]) → its name.
    objects: HashMap<String, String>,
    /// A scalar type's description → its name (a field's doc comment replaces it, so only unreplaced ones match).
    scalars: HashMap<String, String>,
    version: String,
}

/// An object schema's fingerprint: its property names with their descriptions, which Kubernetes writes for every
/// field and the CRD keeps (a field's own doc comment replaces only the description of the field's node).
fn object_key(node: &Value) -> Option<String> {
    let props = node.get("properties")?.as_object()?;
    if props.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = props
        .iter()
        .map(|(name, p)| format!("{name}\u{1f}{}", p.get("description").and_then(Value::as_str).unwrap_or("")))
        .collect();
    parts.sort();
    Some(parts.join("\u{1e}"))
}

impl Builtins {
    /// The table of `version` (`"1.37"`), else the default version's.
    pub fn new(version: &str) -> Builtins {
        let table = K8sTable::for_version(version).unwrap_or_else(K8sTable::default_table);
        let mut objects = HashMap::new();
        let mut scalars = HashMap::new();
        // Own names (`Container`) sort before paths (`api::core::v1::Container`), so a type is known by its own
        // name where it has one; a type sharing its name with others (`ServiceReference`) by its last segment.
        for key in table.names() {
            let Some(schema) = table.get(key) else { continue };
            let name = key.rsplit("::").next().unwrap_or(key);
            if let Some(key) = object_key(&schema) {
                objects.entry(key).or_insert_with(|| name.to_string());
            } else if let Some(d) = schema.get("description").and_then(Value::as_str) {
                scalars.entry(d.to_string()).or_insert_with(|| name.to_string());
            }
        }
        Builtins { objects, scalars, version: table.version().to_string() }
    }

    /// The built-in object type `node` is, if any (`ObjectMeta`, `Condition`, ...).
    pub fn object_name(&self, node: &Value) -> Option<&str> {
        self.objects.get(&object_key(node)?).map(String::as_str)
    }

    /// The built-in scalar type `node` is (`Quantity`, `Time`, ...), when its description is still Kubernetes'.
    pub fn scalar_name(&self, node: &Value) -> Option<&str> {
        let d = node.get("description")?.as_str()?;
        self.scalars.get(d).map(String::as_str)
    }

    /// The Kubernetes API reference of the built-in type `name`, for the table's version.
    pub fn url(&self, name: &str) -> Option<String> {
        reference_url(name, &self.version)
    }
}

/// The group part of the Kubernetes reference's anchors (`condition-v1-meta`, `deploymentspec-v1-apps`).
fn reference_group(name: &str) -> &'static str {
    match name {
        "Condition"
        | "LabelSelector"
        | "LabelSelectorRequirement"
        | "MicroTime"
        | "ObjectMeta"
        | "OwnerReference"
        | "Time" => "meta",
        "DeploymentSpec" | "DeploymentStrategy" => "apps",
        "JobSpec" => "batch",
        "PolicyRule" => "rbac-authorization-k8s-io",
        _ => "core",
    }
}

/// `https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.37/#condition-v1-meta`; IntOrString has no
/// entry there, Quantity its own page.
pub fn reference_url(name: &str, version: &str) -> Option<String> {
    match name {
        "IntOrString" => None,
        "Quantity" => Some("https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/".into()),
        _ => Some(format!(
            "https://kubernetes.io/docs/reference/generated/kubernetes-api/v{version}/#{}-v1-{}",
            name.to_lowercase(),
            reference_group(name)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_a_condition_and_a_quantity_by_shape() {
        let b = Builtins::new("1.37");
        let table = K8sTable::for_version("1.37").unwrap();
        assert_eq!(b.object_name(&table.get("Condition").unwrap()), Some("Condition"));
        assert_eq!(b.scalar_name(&table.get("Quantity").unwrap()), Some("Quantity"));
        let own = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert_eq!(b.object_name(&own), None);
        assert_eq!(
            b.url("Condition").as_deref(),
            Some("https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.37/#condition-v1-meta")
        );
    }
}
