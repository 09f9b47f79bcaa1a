//! A resource's two objects side by side as Argo CD compares them: one
//! line per field, each knowing its JSON pointer, so that a changed value
//! is one pair of lines (Git's old value, the live one), and each line says
//! how Argo CD counts it: part of a counted difference, of a hidden one,
//! never compared (dropped by Argo CD's normalisation, or filled in by the
//! API server without making a difference), or the folded last-applied
//! annotation.

use super::{DiffLine, LineMark, LineTag};
use crate::model::Difference;
use crate::normalize::Normalizer;
use serde_json::Value;

/// The annotation kubectl and Argo CD's client-side apply write: the whole
/// last apply as JSON, which would fill the view.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What the compared view needs to know of the comparison.
pub struct Comparison<'a> {
    /// The objects' group, for Argo CD's normalisation.
    pub group: &'a str,
    /// The objects' kind.
    pub kind: &'a str,
    /// Whether Argo CD keeps `status` in the comparison of this kind.
    pub keep_status: bool,
    /// argocd-cm `ignoreAggregatedRoles`.
    pub ignore_aggregated_roles: bool,
    /// The resource's differences in the report (hidden ones only when shown).
    pub differences: &'a [Difference],
}

/// The side-by-side lines of a Git and a live object (either may be
/// missing), paired by field: a field on both sides with another value is
/// a Git line followed by the live line of the same pointer.
pub fn compared_lines(
    git: Option<&Value>,
    live: Option<&Value>,
    how: &Comparison,
) -> Vec<DiffLine> {
    let norm = Normalizer {
        group: how.group,
        kind: how.kind,
        ignore_aggregated_roles: how.ignore_aggregated_roles,
        keep_status: how.keep_status,
    };
    let left = git.map(yaml_lines).unwrap_or_default();
    let right = live.map(yaml_lines).unwrap_or_default();
    let compared = [
        git.map(|g| norm.normalize(g)),
        live.map(|l| norm.normalize(l)),
    ];
    let keys =
        |lines: &[FieldLine]| -> Vec<String> { lines.iter().map(|l| l.pointer.clone()).collect() };
    let (lk, rk) = (keys(&left), keys(&right));
    let mut out = Vec::with_capacity(left.len().max(right.len()));
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &lk, &rk) {
        for change in op.iter_changes(&lk, &rk) {
            match (change.old_index(), change.new_index()) {
                (Some(i), Some(j)) if left[i].text == right[j].text => {
                    out.push(line(LineTag::Same, Some(i), Some(j), &left[i]))
                }
                (Some(i), Some(j)) => {
                    out.push(line(LineTag::Git, Some(i), None, &left[i]));
                    out.push(line(LineTag::Live, None, Some(j), &right[j]));
                }
                (Some(i), None) => out.push(line(LineTag::Git, Some(i), None, &left[i])),
                (None, Some(j)) => out.push(line(LineTag::Live, None, Some(j), &right[j])),
                (None, None) => {}
            }
        }
    }
    mark(&mut out, &compared, how.differences);
    out
}

fn line(tag: LineTag, git: Option<usize>, live: Option<usize>, l: &FieldLine) -> DiffLine {
    DiffLine {
        tag,
        git_line: git.map(|i| i + 1),
        live_line: live.map(|j| j + 1),
        text: l.text.clone(),
        pointer: l.pointer.clone(),
        mark: if l.folded {
            LineMark::Folded
        } else {
            LineMark::Plain
        },
        anchor: None,
    }
}

/// Whether `pointer` is `within` or below it.
fn under(pointer: &str, within: &str) -> bool {
    pointer == within
        || (pointer.starts_with(within) && pointer.as_bytes().get(within.len()) == Some(&b'/'))
}

/// Say how Argo CD counts each line, and anchor each difference on its
/// first line.
fn mark(lines: &mut [DiffLine], compared: &[Option<Value>; 2], differences: &[Difference]) {
    let mut anchored = std::collections::HashSet::new();
    for l in lines.iter_mut() {
        if l.mark == LineMark::Folded {
            continue;
        }
        let side = usize::from(l.tag == LineTag::Live);
        let kept = |v: &Option<Value>| v.as_ref().is_some_and(|v| v.pointer(&l.pointer).is_some());
        let in_comparison = match l.tag {
            LineTag::Same => kept(&compared[0]) || kept(&compared[1]),
            _ => kept(&compared[side]),
        };
        let difference = differences.iter().find(|d| under(&l.pointer, &d.pointer));
        l.mark = match (difference, l.tag) {
            (Some(d), _) if d.visible => LineMark::Counted,
            (Some(_), _) => LineMark::Hidden,
            (None, _) if !in_comparison => LineMark::Uncompared,
            (None, LineTag::Same) => LineMark::Plain,
            (None, _) => LineMark::Uncompared,
        };
        if let Some(d) = difference {
            if anchored.insert(d.pointer.clone()) {
                l.anchor = Some(d.pointer.clone());
            }
        }
    }
    // A difference whose field is on no line (a value both sides show the
    // same way, such as a number written two ways) anchors on its parent's.
    for d in differences {
        if anchored.contains(&d.pointer) {
            continue;
        }
        if let Some(l) = lines
            .iter_mut()
            .filter(|l| l.anchor.is_none() && under(&d.pointer, &l.pointer))
            .max_by_key(|l| l.pointer.len())
        {
            l.anchor = Some(d.pointer.clone());
            anchored.insert(d.pointer.clone());
        }
    }
}

/// One line of an object written as YAML, with the field it shows.
#[derive(Debug, Clone, PartialEq)]
struct FieldLine {
    pointer: String,
    text: String,
    folded: bool,
}

/// An object as block YAML, one line per field (a multi-line string is
/// written as one quoted line, so every field has one line).
fn yaml_lines(v: &Value) -> Vec<FieldLine> {
    let mut out = Vec::new();
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, c) in m {
                entry(&mut out, 0, "", k, c, "");
            }
        }
        other => out.push(FieldLine {
            pointer: String::new(),
            text: scalar(other),
            folded: false,
        }),
    }
    out
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A map entry at `indent`; `lead` is "- " for the first key of a list item.
fn entry(
    out: &mut Vec<FieldLine>,
    indent: usize,
    lead: &str,
    key: &str,
    value: &Value,
    parent: &str,
) {
    let pointer = format!("{parent}/{}", escape(key));
    let head = format!(
        "{}{lead}{}:",
        " ".repeat(indent),
        scalar(&Value::String(key.into()))
    );
    let inner = indent + lead.len();
    match value {
        Value::String(s) if key == LAST_APPLIED && parent == "/metadata/annotations" => {
            out.push(FieldLine {
                pointer,
                text: format!(
                    "{head} ⋯ (the last apply as JSON, {} characters, folded)",
                    s.chars().count()
                ),
                folded: true,
            })
        }
        Value::Object(m) if !m.is_empty() => {
            out.push(FieldLine {
                pointer: pointer.clone(),
                text: head,
                folded: false,
            });
            for (k, c) in m {
                entry(out, inner + 2, "", k, c, &pointer);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            out.push(FieldLine {
                pointer: pointer.clone(),
                text: head,
                folded: false,
            });
            for (i, item) in items.iter().enumerate() {
                list_item(out, inner, item, &format!("{pointer}/{i}"));
            }
        }
        other => out.push(FieldLine {
            pointer,
            text: format!("{head} {}", scalar(other)),
            folded: false,
        }),
    }
}

fn list_item(out: &mut Vec<FieldLine>, indent: usize, item: &Value, pointer: &str) {
    let pad = " ".repeat(indent);
    match item {
        Value::Object(m) if !m.is_empty() => {
            // The item itself has no line of its own: its first key carries the dash.
            for (n, (k, c)) in m.iter().enumerate() {
                if n == 0 {
                    entry(out, indent, "- ", k, c, pointer);
                } else {
                    entry(out, indent + 2, "", k, c, pointer);
                }
            }
        }
        Value::Array(inner) if !inner.is_empty() => {
            out.push(FieldLine {
                pointer: pointer.to_string(),
                text: format!("{pad}-"),
                folded: false,
            });
            for (i, x) in inner.iter().enumerate() {
                list_item(out, indent + 2, x, &format!("{pointer}/{i}"));
            }
        }
        other => out.push(FieldLine {
            pointer: pointer.to_string(),
            text: format!("{pad}- {}", scalar(other)),
            folded: false,
        }),
    }
}

/// A scalar (or empty collection) as YAML writes it on one line.
fn scalar(v: &Value) -> String {
    match v {
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        Value::String(s) if s.contains('\n') || s.contains('\r') => {
            serde_json::to_string(s).unwrap_or_default()
        }
        other => serde_yaml::to_string(other)
            .map(|t| t.trim_end_matches('\n').to_string())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Difference;
    use serde_json::json;

    fn how<'a>(differences: &'a [Difference]) -> Comparison<'a> {
        Comparison {
            group: "apps",
            kind: "Deployment",
            keep_status: false,
            ignore_aggregated_roles: false,
            differences,
        }
    }

    fn difference(pointer: &str, visible: bool) -> Difference {
        let mut d: Difference = serde_json::from_value(json!({
            "pointer": pointer, "jq": "", "change": "changed", "cause": "drift",
            "rule": "DR001", "confidence": "high", "evidence": "", "visible": visible,
            "git": null, "live": null
        }))
        .expect("a difference");
        d.visible = visible;
        d
    }

    fn shown(lines: &[DiffLine]) -> Vec<(LineTag, &str, LineMark)> {
        lines
            .iter()
            .map(|l| (l.tag, l.text.as_str(), l.mark))
            .collect()
    }

    #[test]
    fn a_changed_value_is_one_pair_of_lines_and_its_difference_is_anchored_there() {
        let git = json!({"spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "web", "image": "web:1"}]}}}});
        let live = json!({"spec": {"replicas": 5, "template": {"spec": {"containers": [{"name": "web", "image": "web:1"}]}}}});
        let diffs = [difference("/spec/replicas", true)];
        let lines = compared_lines(Some(&git), Some(&live), &how(&diffs));
        assert_eq!(
            shown(&lines),
            [
                (LineTag::Same, "spec:", LineMark::Plain),
                (LineTag::Git, "  replicas: 2", LineMark::Counted),
                (LineTag::Live, "  replicas: 5", LineMark::Counted),
                (LineTag::Same, "  template:", LineMark::Plain),
                (LineTag::Same, "    spec:", LineMark::Plain),
                (LineTag::Same, "      containers:", LineMark::Plain),
                (LineTag::Same, "      - image: web:1", LineMark::Plain),
                (LineTag::Same, "        name: web", LineMark::Plain),
            ]
        );
        let anchors: Vec<(&str, &str)> = lines
            .iter()
            .filter_map(|l| Some((l.text.as_str(), l.anchor.as_deref()?)))
            .collect();
        assert_eq!(anchors, [("  replicas: 2", "/spec/replicas")]);
        assert_eq!((lines[1].git_line, lines[2].live_line), (Some(2), Some(2)));
    }

    #[test]
    fn server_fields_are_uncompared_hidden_ones_hidden_and_last_applied_folded() {
        let git = json!({"metadata": {"name": "web"}, "spec": {"paused": false}});
        let live = json!({
            "metadata": {"name": "web", "uid": "1234",
                "annotations": {LAST_APPLIED: "{\"a\":1}"}},
            "spec": {"paused": true, "progressDeadlineSeconds": 600},
            "status": {"replicas": 1}
        });
        let diffs = [difference("/spec/paused", false)];
        let lines = compared_lines(Some(&git), Some(&live), &how(&diffs));
        let mark_of = |text: &str| {
            lines
                .iter()
                .find(|l| l.text.trim_start() == text)
                .map(|l| (l.tag, l.mark))
                .unwrap_or_else(|| panic!("no line {text:?}: {lines:?}"))
        };
        assert_eq!(
            mark_of("uid: '1234'"),
            (LineTag::Live, LineMark::Uncompared)
        );
        assert_eq!(mark_of("status:"), (LineTag::Live, LineMark::Uncompared));
        assert_eq!(
            mark_of("progressDeadlineSeconds: 600"),
            (LineTag::Live, LineMark::Uncompared)
        );
        assert_eq!(mark_of("paused: true"), (LineTag::Live, LineMark::Hidden));
        assert_eq!(mark_of("paused: false"), (LineTag::Git, LineMark::Hidden));
        let folded = lines
            .iter()
            .find(|l| l.mark == LineMark::Folded)
            .expect("folded");
        assert!(
            folded.text.contains("folded") && !folded.text.contains("\"a\""),
            "{folded:?}"
        );
    }

    #[test]
    fn a_missing_side_shows_every_field_of_the_other_as_one_difference() {
        let live = json!({"kind": "ConfigMap", "data": {"k": "multi\nline"}});
        let diffs = [difference("", true)];
        let lines = compared_lines(None, Some(&live), &how(&diffs));
        assert!(lines
            .iter()
            .all(|l| l.tag == LineTag::Live && l.mark == LineMark::Counted));
        assert_eq!(lines[0].anchor.as_deref(), Some(""));
        assert!(lines[1..].iter().all(|l| l.anchor.is_none()));
        assert!(
            lines.iter().any(|l| l.text == "  k: \"multi\\nline\""),
            "{lines:?}"
        );
    }
}
