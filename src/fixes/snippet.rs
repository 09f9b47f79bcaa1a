//! The one writer of fix snippets' YAML: an ignore fix's Application,
//! argocd-cm and annotation forms, and the `ignoreDifferences` entries the
//! plan writes too; and the reading of those forms apart for display.

use crate::model::IgnoreSpec;

/// A YAML scalar: plain when it is safe to read back as the same string.
pub(crate) fn yaml_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// The snippet of an ignore fix: its Application form, then after a `---`
/// line its argocd-cm form, and, when the spec offers it, after another
/// `---` line the object's own annotation. The only writer of that text.
pub fn ignore_snippet(spec: &IgnoreSpec, stop_gap: bool, title: &str) -> String {
    // The same paths in both forms, at each form's indent.
    let ignored = |out: &mut String, indent: &str| {
        write_ignored(
            out,
            indent,
            &spec.json_pointers,
            &spec.jq_path_expressions,
            &[],
        )
    };
    let mut out = String::new();
    out.push_str(&format!("# {title}\n"));
    if stop_gap {
        out.push_str("# Stop-gap: open a ticket for the Git fix and set a review date before merging this.\n");
    }
    out.push_str("# Application (this resource only):\nspec:\n  ignoreDifferences:\n");
    write_entry_head(
        &mut out,
        &spec.group,
        &spec.kind,
        Some(&spec.name),
        Some(&spec.namespace),
    );
    ignored(&mut out, "      ");
    if !spec.trust_instead.is_empty() {
        out.push_str(&format!(
            "      # Or trust the field's owner instead of naming paths:\n      # managedFieldsManagers: [{}]\n",
            spec.trust_instead.join(", ")
        ));
    }
    if spec.respect {
        out.push_str("  syncPolicy:\n    syncOptions:\n      # keep the owner's live value when syncing\n      - RespectIgnoreDifferences=true\n");
    }
    let (cm_key, every) = if spec.group.is_empty() {
        (spec.kind.clone(), spec.kind.clone())
    } else {
        (
            format!("{}_{}", spec.group, spec.kind),
            format!("{}/{}", spec.group, spec.kind),
        )
    };
    out.push_str(&format!(
        "---\n# argocd-cm (every {every} in every app):\ndata:\n  resource.customizations.ignoreDifferences.{cm_key}: |\n"
    ));
    ignored(&mut out, "    ");
    if spec.annotation {
        out.push_str(ANNOTATION_FORM_HEAD);
        out.push_str(&format!(
            "metadata:\n  annotations:\n    {}: {}\n",
            crate::ignore::RESOURCE_IGNORE_ANNOTATION,
            yaml_quote(&spec.json_pointers.join(","))
        ));
        if spec.respect {
            out.push_str("# The Application still needs RespectIgnoreDifferences=true (above) for a sync to keep the live value.\n");
        }
    }
    out
}

/// The line that starts the annotation form of an ignore fix's snippet.
const ANNOTATION_FORM_HEAD: &str =
    "---\n# Or the object's own annotation, in Git (Argo CD 3.6 and later; this object only):\n";

/// The two forms of an ignore fix's snippet as [`ignore_snippet`] writes
/// them, for showing them apart: the Application form, and the argocd-cm
/// form after the `---` line (without the annotation form, which
/// [`annotation_form`] gives).
pub fn snippet_forms(snippet: &str) -> (&str, Option<&str>) {
    let settings = annotation_form_at(snippet).map_or(snippet, |at| &snippet[..at + 1]);
    match settings.split_once("\n---\n") {
        Some((application, cm)) => (application, Some(cm)),
        None => (settings, None),
    }
}

/// The annotation form of an ignore fix's snippet, when it has one: the
/// object's own `argocd.argoproj.io/ignore-differences-json-pointers`.
pub fn annotation_form(snippet: &str) -> Option<&str> {
    annotation_form_at(snippet).map(|at| &snippet[at + "\n---\n".len()..])
}

fn annotation_form_at(snippet: &str) -> Option<usize> {
    snippet.find(&format!("\n{ANNOTATION_FORM_HEAD}"))
}

/// The resource lines of one entry of an Application's `ignoreDifferences`
/// (`    - group: …`), as the fixes and the plan write them.
pub(crate) fn write_entry_head(
    out: &mut String,
    group: &str,
    kind: &str,
    name: Option<&str>,
    namespace: Option<&str>,
) {
    out.push_str(&format!(
        "    - group: {}\n      kind: {}\n",
        yaml_quote(group),
        yaml_quote(kind)
    ));
    for (field, value) in [("name", name), ("namespace", namespace)] {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            out.push_str(&format!("      {field}: {}\n", yaml_quote(v)));
        }
    }
}

/// What an ignore rule ignores, as the YAML lists of its entry at `indent`.
pub(crate) fn write_ignored(
    out: &mut String,
    indent: &str,
    pointers: &[String],
    jqs: &[String],
    managers: &[String],
) {
    type Quote = fn(&str) -> String;
    let lists: [(&str, &[String], Quote); 3] = [
        ("jsonPointers", pointers, yaml_quote_pointer),
        ("jqPathExpressions", jqs, single_quoted),
        ("managedFieldsManagers", managers, yaml_quote),
    ];
    for (field, items, quote) in lists {
        if !items.is_empty() {
            out.push_str(&format!("{indent}{field}:\n"));
            for item in items {
                out.push_str(&format!("{indent}  - {}\n", quote(item)));
            }
        }
    }
}

/// A JSON pointer as a YAML scalar: plain where YAML reads it back as the
/// same string.
fn yaml_quote_pointer(p: &str) -> String {
    let plain = p.starts_with('/')
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-~".contains(&b));
    if plain {
        p.to_string()
    } else {
        serde_json::to_string(p).unwrap_or_default()
    }
}

/// jq expressions hold double quotes and pipes: write them single-quoted.
fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
