//! Pairing Git objects with live objects by identity, as Argo CD does: the
//! one place that decides which objects of the two sides are the same
//! resource, shared by the analysis and the page's YAML view.

#![warn(missing_docs)]

use crate::identity::{key_of, ResourceKey, ScopeTable};
use crate::input::{Document, InputError, Side};
use std::collections::BTreeMap;

/// Both sides' objects by resource key. An object given twice with the same
/// content is kept once; what pairs is decided by the key alone.
pub struct Paired<'d> {
    /// The scope of every kind, learnt from both sides.
    pub scopes: ScopeTable,
    /// The Git objects by key.
    pub git: BTreeMap<ResourceKey, &'d Document>,
    /// The live objects by key.
    pub live: BTreeMap<ResourceKey, &'d Document>,
}

/// Key every object of both sides and pair them. Scope is learnt first from
/// the whole input (CRDs, custom kinds live without a namespace), so the
/// result does not depend on the order objects come in. A Git object of a
/// namespaced kind without a namespace (and no `namespace` default) pairs
/// with the one live object of that kind and name, when there is one.
/// Fails when one side holds the same object twice with different content:
/// which copy counts would depend on their order.
pub fn pair<'d>(
    git_docs: &'d [Document],
    live_docs: &'d [Document],
    namespace: Option<&str>,
) -> Result<Paired<'d>, InputError> {
    let mut scopes = ScopeTable::default();
    for d in git_docs {
        scopes.learn_from(&d.object);
    }
    for d in live_docs {
        scopes.learn_from_live(&d.object);
    }
    let ns = namespace.filter(|s| !s.is_empty());
    let mut live = BTreeMap::new();
    for d in live_docs {
        insert_once(&mut live, key_of(&d.object, &scopes, ns), d, Side::Live)?;
    }
    let mut git = BTreeMap::new();
    for d in git_docs {
        let mut key = key_of(&d.object, &scopes, ns);
        if key.namespace.is_empty()
            && !scopes.is_cluster_scoped(&key.group, &key.kind)
            && !live.contains_key(&key)
        {
            let mut same = live
                .keys()
                .filter(|k| k.group == key.group && k.kind == key.kind && k.name == key.name);
            if let (Some(only), None) = (same.next(), same.next()) {
                key = only.clone();
            }
        }
        insert_once(&mut git, key, d, Side::Git)?;
    }
    Ok(Paired { scopes, git, live })
}

/// An object given twice in one side is an error when the copies differ
/// (identical copies, as from a file pasted twice, change nothing).
fn insert_once<'d>(
    seen: &mut BTreeMap<ResourceKey, &'d Document>,
    key: ResourceKey,
    doc: &'d Document,
    side: Side,
) -> Result<(), InputError> {
    match seen.get(&key) {
        None => {
            seen.insert(key, doc);
            Ok(())
        }
        Some(first) if crate::compare::json_eq(&first.object, &doc.object) => Ok(()),
        Some(first) => Err(InputError {
            side,
            document: doc.document,
            line: doc.line,
            column: 1,
            message: format!(
                "{key} is given twice with different content (document {} at line {}, and here); \
                 Argo CD would apply one of them: remove the other",
                first.document, first.line
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse_side;

    #[test]
    fn pairs_by_identity_whatever_the_order() {
        let a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: n\n";
        let b =
            "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: team\n";
        let live_b = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n";
        let git = parse_side(&format!("{a}---\n{b}"), Side::Git).unwrap();
        let git_reversed = parse_side(&format!("{b}---\n{a}"), Side::Git).unwrap();
        let live = parse_side(&format!("{live_b}---\n{a}"), Side::Live).unwrap();
        for g in [&git, &git_reversed] {
            let paired = pair(g, &live, None).unwrap();
            let keys: Vec<String> = paired.git.keys().map(|k| k.to_string()).collect();
            assert_eq!(keys, ["/ConfigMap/n/a", "example.com/Gadget//g"]);
            assert!(paired.git.keys().all(|k| paired.live.contains_key(k)));
        }
    }
}
