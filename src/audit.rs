//! An audit of the ignore rules already in place: for each of the user's
//! rules, what it hides in this input (each rule compared alone), and what
//! is wrong with it. A rule that matches nothing says why (a version in the
//! group, a kind spelt differently, no such object, a pointer that does not
//! resolve, an index an injected item moved); a rule that hides drift or a
//! security-relevant field is too broad; a rule whose work another rule or
//! Argo CD's own normalisation already does is redundant. Where a narrow
//! rule would do, it is written out and checked by comparing again.

#![warn(missing_docs)]

use crate::compare::CompareOptions;
use crate::fixes::sensitive_reason;
use crate::identity::ResourceKey;
use crate::ignore::{self, IgnoreRule};
use crate::model::*;
use crate::path::{self, Seg};
use crate::sorting::CollectByInsertion;
use serde_json::Value;
use std::collections::BTreeSet;

/// One object of the input, as the audit compares it.
pub struct AuditSubject<'a> {
    /// The resource.
    pub key: &'a ResourceKey,
    /// Its Git object, when Git has it.
    pub git: Option<&'a Value>,
    /// Its live object, when live has it.
    pub live: Option<&'a Value>,
}

/// Compares one object again under other options (the pipeline's own
/// comparison and classification).
pub type Recompare<'a> =
    dyn Fn(&ResourceKey, Option<&Value>, Option<&Value>, &CompareOptions) -> Vec<Difference> + 'a;

/// What one rule hides: the object (index into the subjects) and the difference.
type Hidden = Vec<(usize, Difference)>;

/// Whether a hidden difference was hidden by the rule named `source`.
fn hidden_by(d: &Difference, source: &str) -> bool {
    d.hidden_reason
        .as_ref()
        .is_some_and(|r| r.is_by_rule(source))
}

/// What `rule` hides when it is the only rule in place.
fn hidden_alone(
    rule: &IgnoreRule,
    subjects: &[AuditSubject],
    copts: &CompareOptions,
    recompare: &Recompare,
) -> Hidden {
    let alone = CompareOptions {
        ignore_rules: vec![rule.clone()],
        include_hidden: true,
        ..copts.clone()
    };
    let mut out = Vec::new();
    for (i, s) in subjects.iter().enumerate() {
        if !rule.applies_to(s.key) {
            continue;
        }
        for d in recompare(s.key, s.git, s.live, &alone) {
            if hidden_by(&d, &rule.source) {
                out.push((i, d));
            }
        }
    }
    out
}

/// Audit every rule of the user's settings against the input. Empty when
/// the settings hold no rule.
pub fn audit_rules(
    subjects: &[AuditSubject],
    copts: &CompareOptions,
    recompare: &Recompare,
    app: &str,
) -> Vec<RuleAudit> {
    let rules = &copts.ignore_rules;
    let hidden: Vec<Hidden> = rules
        .iter()
        .map(|r| hidden_alone(r, subjects, copts, recompare))
        .collect();
    rules
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            let others: Vec<(&str, &Hidden)> = rules
                .iter()
                .zip(&hidden)
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, (r, h))| (r.source.as_str(), h))
                .collect();
            audit_rule(rule, &hidden[i], &others, subjects, copts, recompare, app)
        })
        .collect()
}

fn audit_rule(
    rule: &IgnoreRule,
    hides: &Hidden,
    others: &[(&str, &Hidden)],
    subjects: &[AuditSubject],
    copts: &CompareOptions,
    recompare: &Recompare,
    app: &str,
) -> RuleAudit {
    let mut audit = RuleAudit {
        rule: rule.source.clone(),
        findings: Vec::new(),
        hides: hides.len(),
        corrected: None,
    };
    let matched: Vec<usize> = (0..subjects.len())
        .filter(|&i| rule.applies_to(subjects[i].key))
        .collect();
    let mut candidate: Option<IgnoreRule> = None;
    if matched.is_empty() {
        let (message, corrected) = why_no_object(rule, subjects);
        audit
            .findings
            .push(finding(AuditKind::MatchesNothing, message));
        candidate = corrected;
    } else if hides.is_empty() {
        if let Some(message) = already_normalised(rule, &matched, subjects, copts, recompare) {
            audit.findings.push(finding(AuditKind::Redundant, message));
        } else {
            let (message, corrected) = why_no_field(rule, &matched, subjects);
            audit
                .findings
                .push(finding(AuditKind::MatchesNothing, message));
            candidate = corrected;
        }
    } else {
        let unsafe_fields: Vec<&(usize, Difference)> = hides
            .iter()
            .filter(|(i, d)| {
                d.cause == Cause::Drift || sensitive_reason(subjects[*i].key, &d.pointer).is_some()
            })
            .collect();
        if let Some((i, d)) = unsafe_fields.first() {
            let what = match sensitive_reason(subjects[*i].key, &d.pointer) {
                Some(why) if d.cause != Cause::Drift => {
                    format!("a security-relevant field ({why})")
                }
                _ => "a real change (drift)".to_string(),
            };
            audit.findings.push(finding(
                AuditKind::TooBroad,
                format!(
                    "It hides {} of {}, {what}{}.",
                    crate::text::field_code(&d.segs),
                    subjects[*i].key,
                    if unsafe_fields.len() > 1 {
                        format!(
                            ", and {} more such {}",
                            unsafe_fields.len() - 1,
                            if unsafe_fields.len() == 2 {
                                "field"
                            } else {
                                "fields"
                            }
                        )
                    } else {
                        String::new()
                    }
                ),
            ));
            let moved = rule
                .json_pointers
                .iter()
                .find_map(|p| moved_item(p, matched.iter().map(|&i| &subjects[i])).map(|(m, _)| m));
            if let (Some(m), Some(last)) = (moved, audit.findings.last_mut()) {
                last.message = format!("{} {m}", last.message);
            }
            candidate = narrowed(rule, hides, &unsafe_fields, subjects);
        }
        if let Some(other) = covered_by(hides, others) {
            audit.findings.push(finding(
                AuditKind::Redundant,
                format!("Everything it hides here, {other} hides too."),
            ));
        }
    }
    if let Some(c) = candidate {
        let fixed = hidden_alone(&c, subjects, copts, recompare);
        let safe = fixed.iter().all(|(i, d)| {
            d.cause != Cause::Drift && sensitive_reason(subjects[*i].key, &d.pointer).is_none()
        });
        if safe {
            audit.corrected = Some(crate::plan::application_fragment(app, &[c], false));
        }
    }
    audit
}

fn finding(kind: AuditKind, message: String) -> AuditFinding {
    AuditFinding { kind, message }
}

/// The first other rule that alone hides every field this one hides.
fn covered_by(hides: &Hidden, others: &[(&str, &Hidden)]) -> Option<String> {
    let mine: BTreeSet<(usize, &str)> = hides
        .iter()
        .map(|(i, d)| (*i, d.pointer.as_str()))
        .collect_by_insertion();
    others.iter().find_map(|(source, h)| {
        let theirs: BTreeSet<(usize, &str)> = h
            .iter()
            .map(|(i, d)| (*i, d.pointer.as_str()))
            .collect_by_insertion();
        mine.is_subset(&theirs).then(|| source.to_string())
    })
}

/// A version written in the group: `apps/v1` names the group `apps`, and
/// the core group's `v1` names the empty group.
fn group_without_version(group: &str) -> Option<String> {
    let is_version = |v: &str| {
        v.strip_prefix('v')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    match group.rsplit_once('/') {
        Some((g, v)) if is_version(v) => Some(g.to_string()),
        None if is_version(group) => Some(String::new()),
        _ => None,
    }
}

/// Why a rule's group, kind, name and namespace select no pasted object,
/// and the rule with the selector corrected when the mistake is a known one.
pub(crate) fn why_no_object(
    rule: &IgnoreRule,
    subjects: &[AuditSubject],
) -> (String, Option<IgnoreRule>) {
    if let Some(group) = group_without_version(&rule.group) {
        let mut c = rule.clone();
        c.group = group.clone();
        if subjects.iter().any(|s| c.applies_to(s.key)) {
            return (
                format!(
                    "Its group `{}` holds an API version; a rule names the group alone (`{}`{}).",
                    rule.group,
                    group,
                    if group.is_empty() {
                        ", the core group"
                    } else {
                        ""
                    }
                ),
                Some(c),
            );
        }
    }
    let same_group: Vec<&AuditSubject> = subjects
        .iter()
        .filter(|s| path::glob(&rule.group, &s.key.group))
        .collect();
    if let Some(s) = same_group
        .iter()
        .find(|s| s.key.kind.eq_ignore_ascii_case(&rule.kind) && s.key.kind != rule.kind)
    {
        let mut c = rule.clone();
        c.kind = s.key.kind.clone();
        return (
            format!(
                "Its kind `{}` matches no object: kinds are compared exactly, and the object's kind is `{}`.",
                rule.kind, s.key.kind
            ),
            Some(c),
        );
    }
    let same_kind: Vec<&&AuditSubject> = same_group
        .iter()
        .filter(|s| path::glob(&rule.kind, &s.key.kind))
        .collect();
    if same_kind.is_empty() {
        let kind = if rule.group.is_empty() {
            rule.kind.clone()
        } else {
            format!("{}/{}", rule.group, rule.kind)
        };
        return (
            format!("No pasted object is a {kind}: the rule applies to nothing here."),
            None,
        );
    }
    let names: Vec<String> = same_kind
        .iter()
        .take(5)
        .map(|s| s.key.to_string())
        .collect();
    let selector = match (rule.name.as_deref(), rule.namespace.as_deref()) {
        (Some(n), Some(ns)) if !ns.is_empty() => format!("named `{n}` in namespace `{ns}`"),
        (Some(n), _) => format!("named `{n}`"),
        (None, Some(ns)) => format!("in namespace `{ns}`"),
        (None, None) => String::new(),
    };
    (
        format!(
            "No {} {selector} was pasted (the pasted ones: {}).",
            rule.kind,
            names.join(", ")
        ),
        None,
    )
}

/// Whether Argo CD's own normalisation already hides the fields the rule
/// names: the reason, when it does.
fn already_normalised(
    rule: &IgnoreRule,
    matched: &[usize],
    subjects: &[AuditSubject],
    copts: &CompareOptions,
    recompare: &Recompare,
) -> Option<String> {
    let bare = CompareOptions {
        ignore_rules: Vec::new(),
        include_hidden: true,
        ..copts.clone()
    };
    if let Some(message) = status_left_out(rule, matched, subjects, copts) {
        return Some(message);
    }
    let only = [rule];
    matched.iter().find_map(|&i| {
        let s = &subjects[i];
        recompare(s.key, s.git, s.live, &bare)
            .into_iter()
            .filter(|d| !d.visible)
            .find(|d| {
                                ignore::rule_hiding(&only, &d.segs, d.compared_value()).is_some()
            })
            .map(|d| {
                format!(
                    "Argo CD already leaves {} of {} out of the comparison ({}), so the rule has nothing to hide.",
                    crate::text::field_code(&d.segs),
                    s.key,
                    d.hidden_reason.map(|r| r.to_string()).unwrap_or_default()
                )
            })
    })
}

/// A rule on `status` where Argo CD's `ignoreResourceStatusField` already
/// leaves it out of the comparison.
fn status_left_out(
    rule: &IgnoreRule,
    matched: &[usize],
    subjects: &[AuditSubject],
    copts: &CompareOptions,
) -> Option<String> {
    let on_status = !rule.json_pointers.is_empty()
        && rule
            .json_pointers
            .iter()
            .all(|p| p == "/status" || p.starts_with("/status/"));
    if !on_status {
        return None;
    }
    let mode = copts.ignore_resource_status_field;
    let covered = matched.iter().all(|&i| {
        let key = subjects[i].key;
        mode.ignores(&key.group, &key.kind)
    });
    covered.then(|| {
        format!(
            "Argo CD already leaves `status` of these objects out of the comparison (`ignoreResourceStatusField: {}`, Argo CD {}), so the rule has nothing to hide.",
            mode.id(),
            copts.release
        )
    })
}

/// Why the fields a rule names do not differ in the objects it selects, and
/// a corrected rule when the mistake is a known one.
fn why_no_field(
    rule: &IgnoreRule,
    matched: &[usize],
    subjects: &[AuditSubject],
) -> (String, Option<IgnoreRule>) {
    if let Some(message) = failing_jq(rule, matched, subjects) {
        return (message, None);
    }
    for (pi, p) in rule.json_pointers.iter().enumerate() {
        let objects: Vec<&Value> = matched
            .iter()
            .flat_map(|&i| [subjects[i].git, subjects[i].live])
            .flatten()
            .collect();
        if let Some((message, fixed)) =
            pointer_problem(p, &objects, matched.iter().map(|&i| &subjects[i]))
        {
            let mut c = rule.clone();
            match fixed {
                Fixed::Pointer(q) => c.json_pointers[pi] = q,
                Fixed::Jq(jq) => {
                    c.json_pointers.remove(pi);
                    c.jq_path_expressions.push(jq);
                }
                Fixed::None => return (message, None),
            }
            return (message, Some(c));
        }
    }
    (
        "None of the fields it names differs in the objects it selects: it hides nothing here (keep it only if it is there for another state of these objects).".into(),
        None,
    )
}

/// A jq expression of the rule that fails on every object it selects
/// (Argo CD then skips it for that object, so it hides nothing).
fn failing_jq(rule: &IgnoreRule, matched: &[usize], subjects: &[AuditSubject]) -> Option<String> {
    rule.jq_path_expressions.iter().find_map(|expr| {
        let objects: Vec<&Value> = matched.iter().filter_map(|&i| subjects[i].live.or(subjects[i].git)).collect();
        let fails = !objects.is_empty()
            && objects
                .iter()
                .all(|o| rule.jq.delete(&rule.source, expr, o).is_none());
        fails.then(|| {
            format!(
                "Its jq expression `{expr}` fails on every object it selects (an error, or not exactly one result), and Argo CD skips a failing expression: it hides nothing."
            )
        })
    })
}

/// The correction of one pointer.
pub(crate) enum Fixed {
    Pointer(String),
    Jq(String),
    None,
}

/// What is wrong with a pointer on these objects, and its correction.
pub(crate) fn pointer_problem<'a>(
    pointer: &str,
    objects: &[&Value],
    subjects: impl Iterator<Item = &'a AuditSubject<'a>> + Clone,
) -> Option<(String, Fixed)> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Some((
            format!("The pointer `{pointer}` does not start with `/`, so Argo CD resolves it to nothing."),
            Fixed::Pointer(format!("/{pointer}")),
        ));
    }
    if has_bare_tilde(pointer) {
        let fixed = escape_bare_tildes(pointer);
        return Some((
            format!("The pointer `{pointer}` has a `~` not followed by `0` or `1`; a `~` in a key is written `~0`."),
            Fixed::Pointer(fixed),
        ));
    }
    if objects.iter().any(|o| o.pointer(pointer).is_some()) {
        return moved_item(pointer, subjects);
    }
    let tokens = path::pointer_tokens(pointer)?;
    for obj in objects {
        if let Some(problem) = unresolved_step(obj, &tokens) {
            return Some(problem);
        }
    }
    None
}

fn has_bare_tilde(p: &str) -> bool {
    let b = p.as_bytes();
    b.iter()
        .enumerate()
        .any(|(i, &c)| c == b'~' && !matches!(b.get(i + 1), Some(b'0') | Some(b'1')))
}

fn escape_bare_tildes(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '~' && !matches!(chars.peek(), Some('0') | Some('1')) {
            out.push('0');
        }
    }
    out
}

/// Where a pointer stops resolving in one object: a key with an unescaped
/// `/`, or an index beyond the list.
fn unresolved_step(obj: &Value, tokens: &[String]) -> Option<(String, Fixed)> {
    let mut cur = obj;
    for (i, t) in tokens.iter().enumerate() {
        match cur {
            Value::Object(m) => {
                if let Some(next) = m.get(t) {
                    cur = next;
                    continue;
                }
                // A key holding `/` split into several tokens.
                for end in (i + 2..=tokens.len()).rev() {
                    let joined = tokens[i..end].join("/");
                    if m.contains_key(&joined) {
                        let mut fixed: Vec<String> = tokens[..i]
                            .iter()
                            .map(|t| path::escape_pointer_token(t))
                            .collect();
                        fixed.push(path::escape_pointer_token(&joined));
                        fixed.extend(tokens[end..].iter().map(|t| path::escape_pointer_token(t)));
                        return Some((
                            format!("The key `{joined}` holds a `/`, which a JSON pointer writes as `~1`; unescaped, the pointer names a path that does not exist."),
                            Fixed::Pointer(format!("/{}", fixed.join("/"))),
                        ));
                    }
                }
                return None;
            }
            Value::Array(a) => match t.parse::<usize>() {
                Ok(n) if n >= a.len() => {
                    return Some((
                        format!(
                            "Index {n} is beyond the list at `/{}`, which holds {}.",
                            tokens[..i].join("/"),
                            crate::text::count(a.len(), "item", "items")
                        ),
                        Fixed::None,
                    ));
                }
                Ok(n) => cur = &a[n],
                Err(_) => return None,
            },
            _ => return None,
        }
    }
    None
}

/// A pointer whose index names one item in Git and another live (an
/// injected sidecar moved the list): the item by its name, as a jq
/// expression.
fn moved_item<'a>(
    pointer: &str,
    subjects: impl Iterator<Item = &'a AuditSubject<'a>>,
) -> Option<(String, Fixed)> {
    let tokens = path::pointer_tokens(pointer)?;
    for s in subjects {
        let (Some(git), Some(live)) = (s.git, s.live) else {
            continue;
        };
        let (mut g, mut l) = (git, live);
        let mut segs: Vec<Seg> = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            match (g, l) {
                (Value::Object(gm), Value::Object(lm)) => {
                    segs.push(Seg::Key(t.clone()));
                    match (gm.get(t), lm.get(t)) {
                        (Some(a), Some(b)) => (g, l) = (a, b),
                        _ => break,
                    }
                }
                (Value::Array(ga), Value::Array(la)) => {
                    let Ok(n) = t.parse::<usize>() else { break };
                    let name = |v: Option<&Value>| v.and_then(|x| x.get("name")).cloned();
                    let (gn, ln) = (name(ga.get(n)), name(la.get(n)));
                    if let (Some(gn), Some(ln)) = (&gn, &ln) {
                        if gn != ln {
                            segs.push(Seg::Item {
                                index: None,
                                key: Some(("name".into(), gn.clone())),
                            });
                            segs.extend(tokens[i + 1..].iter().map(|t| Seg::Key(t.clone())));
                            let jq = path::jq(&segs);
                            return Some((
                                format!(
                                    "Index {n} names `{}` in Git but `{}` live in {} (an injected item moved the list), so the rule hides the wrong item; select the item by name instead.",
                                    gn.as_str().unwrap_or_default(),
                                    ln.as_str().unwrap_or_default(),
                                    s.key
                                ),
                                Fixed::Jq(jq),
                            ));
                        }
                    }
                    match (ga.get(n), la.get(n)) {
                        (Some(a), Some(b)) => (g, l) = (a, b),
                        _ => break,
                    }
                    segs.push(Seg::Item {
                        index: Some(n),
                        key: None,
                    });
                }
                _ => break,
            }
        }
    }
    None
}

/// The rule limited to the safe fields it hides, as JSON pointers on the
/// objects it selects; None when nothing safe is left.
fn narrowed(
    rule: &IgnoreRule,
    hides: &Hidden,
    unsafe_fields: &[&(usize, Difference)],
    subjects: &[AuditSubject],
) -> Option<IgnoreRule> {
    let bad: BTreeSet<(usize, &str)> = unsafe_fields
        .iter()
        .map(|(i, d)| (*i, d.pointer.as_str()))
        .collect_by_insertion();
    let safe: Vec<&(usize, Difference)> = hides
        .iter()
        .filter(|(i, d)| !bad.contains(&(*i, d.pointer.as_str())))
        .collect();
    let first = safe.first()?;
    let objects: BTreeSet<usize> = safe.iter().map(|(i, _)| *i).collect_by_insertion();
    let mut c = rule.clone();
    if objects.len() == 1 {
        let key = subjects[first.0].key;
        c.name = Some(key.name.clone());
        c.namespace = (!key.namespace.is_empty()).then(|| key.namespace.clone());
    }
    c.jq_path_expressions = Vec::new();
    c.managed_fields_managers = Vec::new();
    c.json_pointers = Vec::new();
    for (_, d) in &safe {
        let p = if path::pointer_is_exact(&d.segs) {
            d.pointer.clone()
        } else {
            c.jq_path_expressions.push(path::jq(&d.segs));
            continue;
        };
        if !c.json_pointers.contains(&p) {
            c.json_pointers.push(p);
        }
    }
    c.jq_path_expressions.dedup();
    Some(c)
}
