#!/usr/bin/env python3
"""Extract the k8s-openapi type schemas embedded by kube-derive into `data/k8s-schemas.json`.

Source: the kube-derive conformance corpus (`tests/conformance/kube-derive/out/k8stypes.json` and
`big-k8stypes.json`), i.e. CRDs produced by kube 5.0.0 + k8s-openapi 0.29.0 (feature `latest` = v1_37).
Each entry is the schema of the *non-optional* type exactly as kube-derive emits it inside a CRD.

TODO(k8s-table): a later issue replaces this with an xtask that derives the table from the real
k8s-openapi crate, one table per supported Kubernetes version feature.

Usage: scripts/extract-k8s-schemas.py [corpus_out_dir] > data/k8s-schemas.json
"""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/conformance/kube-derive/out")


def spec_props(name):
    crd = json.loads((out / f"{name}.json").read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]


def non_optional(schema):
    schema = dict(schema)
    schema.pop("nullable", None)
    return schema


k8s = spec_props("k8stypes")
big = spec_props("big-k8stypes")
table = {
    # key: the k8s-openapi type name (last path segment)
    "Quantity": k8s["quantity"],
    "IntOrString": k8s["intOrString"],
    "Time": k8s["time"],
    "MicroTime": non_optional(k8s["microTime"]),
    "LabelSelector": k8s["selector"],
    "LabelSelectorRequirement": k8s["selector"]["properties"]["matchExpressions"]["items"],
    "ResourceRequirements": non_optional(k8s["resources"]),
    "EnvVar": k8s["env"]["items"],
    "SecretKeySelector": non_optional(k8s["secretRef"]),
    "LocalObjectReference": k8s["imagePullSecrets"]["items"],
    "Toleration": k8s["tolerations"]["items"],
    "Condition": k8s["conditions"]["items"],
    "ObjectMeta": non_optional(k8s["embeddedMeta"]),
    "Container": big["container"],
    "PodTemplateSpec": non_optional(big["template"]),
}
json.dump(table, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
