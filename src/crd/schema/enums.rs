//! The schema of an enum as schemars derives it (unit, externally tagged, untagged, internally and adjacently
//! tagged variants), with the shapes kube's structural rewriter then accepts or refuses.

use super::*;

impl Generator<'_> {
    pub(super) fn enum_schema(&mut self, id: ItemId, e: &syn::ItemEnum, c: &ContainerAttrs) -> Result<Value, CrdError> {
        let ix = self.ix;
        let m = ix.items[id].module;
        let file = self.file(m);
        let name = &ix.items[id].name;
        let mut variants = Vec::new();
        for v in &e.variants {
            let va = attrs::variant_attrs(&v.attrs).map_err(|err| attr_err(ix, m, err))?;
            if va.skip_de {
                continue;
            }
            variants.push((v, va));
        }
        if variants.is_empty() {
            return Err(CrdError::unsupported(
                file,
                e.ident.span(),
                format!("enum `{name}` without variants"),
                "kube-derive 5 emits `not: {}` for it (`{enum: [null], nullable: true}` in an Option), a schema \
                 without `type`, which the API server rejects; give it a variant",
            ));
        }
        if let Some(tag) = &c.tag {
            let construct = match &c.content {
                Some(content) => {
                    format!("adjacently tagged enum `{name}` (tag = \"{tag}\", content = \"{content}\")")
                }
                None => format!("internally tagged enum `{name}` (tag = \"{tag}\")"),
            };
            if variants.len() == 1 {
                // One variant defines the tag property once: kube-derive's schema is valid, kubesmith does not
                // build tagged enums itself.
                return Err(CrdError::needs_compile(
                    file,
                    e.ident.span(),
                    format!("{construct} with one variant"),
                    "kubesmith does not build the schemas of tagged enums",
                ));
            }
            return Err(CrdError::unsupported(
                file,
                e.ident.span(),
                construct,
                format!(
                    "kube-derive 5's crd() panics on it: each variant gives the tag property `{tag}` another `enum`, \
                     and kube's structural rewriter panics on a property two variants define differently \
                     (`Property \"..\" has the schema .. but was already defined as .. in another subschema`); use \
                     an externally tagged enum (drop `tag`) or #[serde(untagged)] with struct variants"
                ),
            ));
        }
        // A variant's problem is reported and the next variant looked at, so every problem shows at once.
        if c.untagged {
            let mut payloads = Vec::new();
            for (v, va) in &variants {
                match self.variant_payload(id, v, va, c) {
                    Ok(s) => payloads.push((v, va, s)),
                    Err(err) => self.report(err),
                }
            }
            let is_object = |s: &Value| has_type(s, "object") || s.get("properties").is_some();
            let has_struct = payloads.iter().any(|(_, _, s)| is_object(s));
            let mut any_of = Vec::new();
            for (v, va, s) in payloads {
                // A scalar variant that is never serialized, beside a struct variant: kube keeps only its value
                // validations in the `anyOf` (the enum is `type: object`); the API server takes the CRD, and refuses
                // only values of that variant, which the operator never writes.
                let never_written = va.skip_ser && has_struct && is_plain_scalar(&s);
                if !is_object(&s) && !never_written {
                    let what = if matches!(v.fields, syn::Fields::Unit) {
                        "kube-derive 5 emits `{enum: [null], nullable: true}` for it inside the enum's `anyOf`, \
                         which the API server rejects"
                            .to_string()
                    } else if !has_struct {
                        "kube-derive 5 emits the enum as an `anyOf` of schemas without `type` and no `type` of its \
                         own, which the API server rejects (`type: Required value: must not be empty for specified \
                         object fields`)"
                            .to_string()
                    } else if has_type(&s, "array") {
                        "kube-derive 5 keeps this variant's `type: array` inside the enum's `anyOf`, which the API \
                         server rejects (`anyOf[..].type: Forbidden: must be empty to be structural`)"
                            .to_string()
                    } else {
                        format!(
                            "kube-derive 5 gives the enum `type: object` and this variant an empty schema in its \
                             `anyOf`: the API server accepts the CRD but refuses every `{}` value (`must be of type \
                             object`)",
                            v.ident
                        )
                    };
                    self.report(CrdError::unsupported(
                        file,
                        v.ident.span(),
                        format!("untagged enum `{name}` with non-struct variant `{}`", v.ident),
                        format!(
                            "{what}; use struct variants only, or, for values that are an integer or a string, \
                             k8s-openapi's `IntOrString` (`x-kubernetes-int-or-string: true`, no `type`)"
                        ),
                    ));
                    continue;
                }
                let mut s = s;
                va.common.apply_metadata(&mut s, self.ix.dialect);
                va.common.apply_extensions(&mut s);
                any_of.push(s);
            }
            return Ok(super::object([("anyOf", Value::Array(any_of))]));
        }
        let is_unit = |v: &syn::Variant| matches!(v.fields, syn::Fields::Unit);
        let has_unit = variants.iter().any(|(v, va)| is_unit(v) && !has_custom_schema(va));
        let has_data = variants.iter().any(|(v, va)| !is_unit(v) || has_custom_schema(va));
        if has_unit && has_data {
            let (unit, _) = variants
                .iter()
                .find(|(v, va)| is_unit(v) && !has_custom_schema(va))
                .map(|(v, va)| (v, va))
                .ok_or_else(|| CrdError::unsupported(file, e.ident.span(), "enum", "unreachable"))?;
            return Err(CrdError::unsupported(
                file,
                unit.ident.span(),
                format!("enum `{name}` mixes unit variant `{}` with data variants", unit.ident),
                format!(
                    "kube-derive 5's crd() panics on it: kube's structural rewriter cannot hoist the unit variants' \
                     string `enum` beside the data variants' object properties (`Enum variant set [..] has type \
                     Single(String) but was already defined as Some(Single(Object))`); give the unit variant an empty \
                     struct body (`{} {{}}`) or split the enum",
                    unit.ident
                ),
            ));
        }
        let (plain_units, complex): (Vec<_>, Vec<_>) = variants
            .iter()
            .partition(|(v, va)| is_unit(v) && va.common.is_default() && !has_custom_schema(va) && !va.untagged);
        let unit_schema = json!({
            "type": "string",
            "enum": plain_units.iter().map(|(v, va)| Value::String(variant_name(v, va, c))).collect::<Vec<_>>(),
        });
        if complex.is_empty() {
            return Ok(unit_schema);
        }
        let mut one_of = Vec::new();
        if !plain_units.is_empty() {
            one_of.push(unit_schema);
        }
        for (v, va) in complex {
            let vname = variant_name(v, va, c);
            let mut s = if is_unit(v) && !has_custom_schema(va) {
                match self.ix.dialect {
                    // schemars 0.8's `new_unit_enum`
                    Dialect::Schemars08 => json!({"type": "string", "enum": [vname]}),
                    Dialect::Schemars1 => json!({"type": "string", "const": vname}),
                }
            } else {
                let payload = match self.variant_payload(id, v, va, c) {
                    Ok(p) => p,
                    Err(err) => {
                        self.report(err);
                        continue;
                    }
                };
                super::object([
                    ("type", json!("object")),
                    ("properties", Value::Object(Map::from_iter([(vname.clone(), payload)]))),
                    ("required", json!([vname])),
                    ("additionalProperties", json!(false)),
                ])
            };
            va.common.apply_metadata(&mut s, self.ix.dialect);
            va.common.apply_extensions(&mut s);
            one_of.push(s);
        }
        Ok(super::object([("oneOf", Value::Array(one_of))]))
    }

    /// `expr_for_untagged_enum_variant` without the variant's own metadata (`id`: the enum).
    fn variant_payload(
        &mut self,
        id: ItemId,
        v: &syn::Variant,
        va: &attrs::VariantAttrs,
        c: &ContainerAttrs,
    ) -> Result<Value, CrdError> {
        let ix = self.ix;
        let m = ix.items[id].module;
        if let Some(span) = va.transform {
            return Err(CrdError::needs_compile(
                self.file(m),
                span,
                format!("`#[schemars(transform = ..)]` on variant `{}`", v.ident),
                "a transform fn edits the schema at run time",
            ));
        }
        if let Some((path, span)) = &va.schema_with {
            let construct = format!("`#[schemars(schema_with = \"{path}\")]` on variant `{}`", v.ident);
            return custom::schema_with(ix, self, path, *span, m, construct);
        }
        if let Some(with) = &va.with {
            return self.with_schema(with, m);
        }
        match &v.fields {
            syn::Fields::Unit => Ok(json!({"type": "null"})),
            syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                let f = &u.unnamed[0];
                let fa = attrs::field_attrs(&f.attrs).map_err(|e| attr_err(ix, m, e))?;
                let mut schema =
                    self.field_schema(&FieldCtx { field: f, attrs: fa.clone(), module: m, class: None })?;
                fa.common.apply_extensions(&mut schema);
                // Externally tagged, the payload is the variant's property; untagged ones are judged as variants.
                if !c.untagged && fa.schema_with.is_none() {
                    let ty = fa.with.as_ref().map_or(&f.ty, |w| &w.ty);
                    if let Some(steps) = values::value_spot(ix, self.k8s, ty, m, &|id| self.typed_by_type_markers(id)) {
                        let target = format!(
                            "the variant's field (`{}(#[schemars(..)] ..)`; on the variant it lands on its `oneOf` \
                             entry instead)",
                            v.ident
                        );
                        let what = format!("the field of variant `{}`", v.ident);
                        self.check_value(&schema, &steps, self.file(m), f.ty.span(), &what, &target)?;
                    }
                }
                Ok(schema)
            }
            syn::Fields::Unnamed(u) => Err(CrdError::unsupported(
                self.file(m),
                u.span(),
                format!("tuple variant `{}`", v.ident),
                "kube-derive 5 emits `items` as an array of schemas, which the API server rejects (`items must be a \
                 schema object and not an array`); use a struct variant",
            )),
            syn::Fields::Named(n) => {
                let fields: Vec<&syn::Field> = n.named.iter().collect();
                let rule = va.rename_all.or(c.rename_all_fields);
                self.struct_schema(&fields, rule, None, None, c.deny_unknown_fields, m)
            }
        }
    }
}

/// A string, number, integer or boolean schema without enum values or subschemas: kube's structural rewriter keeps
/// only its value validations (format, bounds, pattern, lengths) as an `anyOf` entry.
fn is_plain_scalar(s: &Value) -> bool {
    let Some(o) = s.as_object() else { return false };
    let scalar = matches!(o.get("type"), Some(Value::String(t)) if ["string", "number", "integer", "boolean"].contains(&t.as_str()));
    scalar
        && !["enum", "const", "anyOf", "oneOf", "allOf", "not", "items", "properties"]
            .iter()
            .any(|k| o.contains_key(*k))
}

/// Whether a variant's schema comes from elsewhere (`with`, `schema_with`): schemars' `is_default` is false.
fn has_custom_schema(va: &attrs::VariantAttrs) -> bool {
    va.with.is_some() || va.schema_with.is_some() || va.transform.is_some()
}
