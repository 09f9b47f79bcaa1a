//! Every fix is checked before it is proposed: it is applied to the input
//! and the resource is compared again by the pipeline's own comparison.
//! An ignore fix goes through the code that applies the user's own rules
//! (its Application form, read back as settings); a Git fix changes the Git
//! side and the last-applied annotation the following sync writes. Each fix
//! then says whether it resolves, what it would also hide, and one fix per
//! group of differences is recommended: the narrowest that resolves with no
//! collateral. Drift is never recommended away.

#![warn(missing_docs)]

use crate::compare::{CompareOptions, LAST_APPLIED};
use crate::fixes::sensitive_reason;
use crate::identity::ResourceKey;
use crate::ignore::{self, IgnoreRule};
use crate::model::*;
use crate::path;
use crate::path::Pointer;
use crate::sorting::CollectByInsertion;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The source name the rules of a fix under verification carry, so that
/// what they hide is told apart from what the user's own rules hide.
const FIX_SOURCE: &str = "(the proposed fix)";

/// Compares one resource again: the pipeline's comparison and classification
/// of a (changed) Git object and live object under (changed) options.
pub type Recompare<'a> =
    dyn Fn(Option<&Value>, Option<&Value>, &CompareOptions) -> Vec<Difference> + 'a;

/// Which form of an ignore fix a rule is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixForm {
    /// The Application's `spec.ignoreDifferences` entry: this object only.
    Application,
    /// `argocd-cm`'s entry: every object of the group and kind.
    ArgocdCm,
}

/// The rule of an ignore fix in one of its forms, named as the proposed fix
/// so that what it hides is told apart from what the user's rules hide.
/// None for a fix that ignores nothing.
pub fn fix_rule(fix: &Fix, form: FixForm, copts: &CompareOptions) -> Option<IgnoreRule> {
    let spec = fix.ignore.as_ref()?;
    let selects_object = form == FixForm::Application;
    Some(IgnoreRule {
        source: FIX_SOURCE.to_string(),
        group: spec.group.clone(),
        kind: spec.kind.clone(),
        name: selects_object.then(|| spec.name.clone()),
        namespace: (selects_object && !spec.namespace.is_empty()).then(|| spec.namespace.clone()),
        json_pointers: spec.json_pointers.clone(),
        jq_path_expressions: spec.jq_path_expressions.clone(),
        managed_fields_managers: Vec::new(),
        jq: copts.jq.clone(),
    })
}

/// Make a Git change at `paths`: drop the field, or write the live value.
/// Returns the changed Git object and how many fields changed.
pub fn apply_git_change(
    git: &Value,
    live: Option<&Value>,
    change: GitChange,
    paths: &[Vec<path::Seg>],
) -> (Value, usize) {
    let mut out = git.clone();
    let mut changed = 0;
    for segs in paths {
        if segs.is_empty() {
            continue;
        }
        let (segs, value) = match change {
            GitChange::Drop => (empty_container_ancestor(&out, segs), None),
            GitChange::WriteLive => (&segs[..], live.and_then(|l| path::get(l, segs)).cloned()),
        };
        if path::set(&mut out, segs, value) {
            changed += 1;
        }
    }
    (out, changed)
}

/// The paths a fix changes in Git: the whole field its rule names for a
/// drop, else each difference it addresses.
fn change_paths(before: &[Difference], fix: &Fix, change: GitChange) -> Vec<Vec<path::Seg>> {
    if change == GitChange::Drop && !fix.git_paths.is_empty() {
        return fix.git_paths.clone();
    }
    own_differences(before, fix)
        .into_iter()
        .map(|d| d.segs.clone())
        .collect()
}

/// Where to drop a field Git does not hold: the empty map or list that
/// stands for it (`annotations: {}`, `rules: []`), since leaving the key
/// out is what the fix asks. Otherwise the field itself (a no-op).
fn empty_container_ancestor<'s>(git: &Value, segs: &'s [path::Seg]) -> &'s [path::Seg] {
    if path::get(git, segs).is_some() {
        return segs;
    }
    for len in (1..segs.len()).rev() {
        match path::get(git, &segs[..len]) {
            Some(Value::Object(m)) if m.is_empty() => return &segs[..len],
            Some(Value::Array(a)) if a.is_empty() => return &segs[..len],
            Some(_) => return segs,
            None => {}
        }
    }
    segs
}

/// The live object after the sync that follows a Git change: its
/// last-applied annotation, when it has one, holds the new Git object
/// (controllers keep writing what they own, so the rest stays).
fn after_sync(live: &Value, new_git: &Value) -> Value {
    let mut out = live.clone();
    if let Some(Value::Object(a)) = out.at_mut("/metadata/annotations") {
        if a.contains_key(LAST_APPLIED) {
            let text = serde_json::to_string(new_git).unwrap_or_default();
            a.insert(LAST_APPLIED.to_string(), Value::String(text));
        }
    }
    out
}

/// What one comparison after a change shows, relative to before.
struct Outcome {
    /// Differences the fix addresses that still show.
    still: Vec<Difference>,
    /// Visible differences that did not show before.
    new: Vec<Difference>,
}

fn outcome(before: &[Difference], own: &BTreeSet<String>, after: &[Difference]) -> Outcome {
    let before_visible: BTreeSet<&str> = before
        .iter()
        .filter(|d| d.visible)
        .map(|d| d.pointer.as_str())
        .collect_by_insertion();
    let still = after
        .iter()
        .filter(|d| d.visible && own.contains(&d.pointer))
        .cloned()
        .collect();
    let new = after
        .iter()
        .filter(|d| d.visible && !before_visible.contains(d.pointer.as_str()))
        .cloned()
        .collect();
    Outcome { still, new }
}

fn field(d: &Difference) -> String {
    crate::text::field_code(&d.segs)
}

fn list(ds: &[Difference]) -> String {
    let names: Vec<String> = ds.iter().map(field).collect();
    names.join(", ")
}

/// `resolves` or `partial`, with the sentence saying what still differs.
fn judge(what: &str, o: &Outcome) -> (Verified, String) {
    if o.still.is_empty() && o.new.is_empty() {
        return (
            Verified::Resolves,
            format!("Compared again {what}: the fields it addresses no longer differ."),
        );
    }
    let mut parts = Vec::new();
    if !o.still.is_empty() {
        parts.push(format!("{} still differs", list(&o.still)));
    }
    if !o.new.is_empty() {
        let why = o.new.first().map(|d| d.evidence.as_str()).unwrap_or("");
        parts.push(format!("{} differs instead ({why})", list(&o.new)));
    }
    (
        Verified::Partial,
        format!("Compared again {what}: {}.", parts.join("; ")),
    )
}

/// The inputs of one resource's verification.
pub struct Subject<'a> {
    /// The resource.
    pub key: &'a ResourceKey,
    /// Its Git object, when Git has it.
    pub git: Option<&'a Value>,
    /// Its live object, when live has it.
    pub live: Option<&'a Value>,
    /// The options it was compared with.
    pub copts: &'a CompareOptions,
    /// The CRD version a custom resource is served at, when the input holds its CRD.
    pub crd: Option<&'a crate::context::CrdVersion>,
}

/// Verify every fix of a resource, mark the recommended ones, and return
/// what still differs once every recommended fix is applied together.
pub fn verify_resource(
    subject: &Subject,
    report: &mut ResourceReport,
    recompare: &Recompare,
) -> Vec<Difference> {
    let before = report.differences.clone();
    let afters: Vec<Option<Vec<Difference>>> = report
        .fixes
        .iter_mut()
        .map(|fix| verify_fix(subject, &before, fix, recompare))
        .collect();
    recommend(&mut report.fixes);
    remaining_after(subject, &before, &report.fixes, &afters, recompare)
}

fn own_differences<'d>(before: &'d [Difference], fix: &Fix) -> Vec<&'d Difference> {
    let own: BTreeSet<&str> = fix
        .pointers
        .iter()
        .map(String::as_str)
        .collect_by_insertion();
    before
        .iter()
        .filter(|d| d.visible && own.contains(d.pointer.as_str()))
        .collect()
}

/// A change to Git is made field by field; beyond this many fields (a
/// generated input changing thousands of list items) it is not checked,
/// so that verification stays linear in the input.
const MAX_FIELDS_CHANGED: usize = 1_000;

/// Verify one fix; returns what the comparison with this fix alone applied
/// showed, when one was made (the same comparison `remaining_after` would
/// make when this fix is the only one recommended).
fn verify_fix(
    subject: &Subject,
    before: &[Difference],
    fix: &mut Fix,
    recompare: &Recompare,
) -> Option<Vec<Difference>> {
    let own: BTreeSet<String> = fix.pointers.iter().cloned().collect_by_insertion();
    match fix.kind {
        FixKind::Ignore => verify_ignore(subject, before, &own, fix, recompare),
        FixKind::Git | FixKind::Render => {
            let change = match (fix.kind, fix.git_change) {
                (FixKind::Render, _) => Some(GitChange::WriteLive),
                (_, change) => change,
            };
            match (change, subject.git, subject.live) {
                (Some(change), Some(git), live) => {
                    let paths = change_paths(before, fix, change);
                    if paths.len() > MAX_FIELDS_CHANGED {
                        fix.verification = format!(
                            "It changes {} fields, more than the {MAX_FIELDS_CHANGED} drift-doctor changes one by one to compare again: not checked.",
                            paths.len()
                        );
                        return None;
                    }
                    let (new_git, changed) = apply_git_change(git, live, change, &paths);
                    if changed == 0 {
                        let what = paths
                            .iter()
                            .map(|p| format!("`{}`", path::dotted(p)))
                            .collect::<Vec<_>>()
                            .join(", ");
                        fix.verified = Verified::Partial;
                        fix.verification = match change {
                            GitChange::Drop => format!("Git has no {what} to remove: the difference comes from elsewhere (with a three-way diff, the last-applied annotation still holding the field), so this change alone does nothing."),
                            GitChange::WriteLive => format!("Git already holds the live value of {what}, so this change alone does nothing."),
                        };
                        return None;
                    }
                    if let (Some(live), FixKind::Git) = (live, fix.kind) {
                        note_sync_effects(
                            fix,
                            crate::sync_effects::of_git_change(
                                subject.key,
                                &new_git,
                                live,
                                &subject.copts.manager,
                            ),
                        );
                    }
                    let new_live = live.map(|l| after_sync(l, &new_git));
                    let after = recompare(Some(&new_git), new_live.as_ref(), subject.copts);
                    let what = match (fix.kind, change) {
                        (FixKind::Render, _) => "with the template's output pinned to the live value (the template must then render that value every time)",
                        (_, GitChange::Drop) => "with the field removed from Git and the last-applied annotation the next sync writes",
                        (_, GitChange::WriteLive) => "with the live value written in Git and the last-applied annotation the next sync writes",
                    };
                    let (v, text) = judge(what, &outcome(before, &own, &after));
                    fix.verified = v;
                    fix.verification = text;
                    // `remaining_after` writes the last-applied annotation
                    // only when Git changed as a whole, as here.
                    (new_git != *git).then_some(after)
                }
                (Some(_), None, _) => {
                    fix.verification = "Git has no such object to change.".into();
                    None
                }
                (None, _, _) => {
                    fix.verification = "This advice is not a change to the manifests, so comparing again cannot check it.".into();
                    None
                }
            }
        }
        FixKind::SyncOrder => {
            fix.verification = "Sync order shows only while a sync runs, not in the objects: check the result of the next sync.".into();
            None
        }
    }
}

/// Keep what the fix's sync does on the way; a harmful effect makes the fix
/// unsafe to apply alone (a warning, so it is never recommended).
fn note_sync_effects(fix: &mut Fix, effects: Vec<crate::model::SyncEffect>) {
    let harms: Vec<&str> = effects
        .iter()
        .filter(|e| e.kind.harms())
        .map(|e| e.message.as_str())
        .collect();
    if !harms.is_empty() {
        fix.warning = Some(format!("Not safe to apply alone: {}", harms.join(" ")));
    }
    fix.sync_effects = effects;
}

fn verify_ignore(
    subject: &Subject,
    before: &[Difference],
    own: &BTreeSet<String>,
    fix: &mut Fix,
    recompare: &Recompare,
) -> Option<Vec<Difference>> {
    let Some(rule) = fix_rule(fix, FixForm::Application, subject.copts) else {
        fix.verification = "The fix names no rule, so it was not checked.".into();
        return None;
    };
    let rules = [rule];
    let mut copts = subject.copts.clone();
    copts.ignore_rules.extend(rules.iter().cloned());
    // Without the hidden differences (computing them costs several times
    // the comparison): what the rule hides of what Argo CD shows today is
    // what no longer shows once it is in place.
    let after = recompare(subject.git, subject.live, &copts);
    let after_visible: BTreeSet<&str> = after
        .iter()
        .filter(|d| d.visible)
        .map(|d| d.pointer.as_str())
        .collect_by_insertion();
    let mut collateral = Vec::new();
    for d in before.iter().filter(|d| d.visible) {
        if own.contains(&d.pointer) || after_visible.contains(d.pointer.as_str()) {
            continue;
        }
        collateral.push(Collateral::of(
            &subject.key.to_string(),
            d,
            true,
            "application",
        ));
    }
    let rule_refs: Vec<&IgnoreRule> = rules.iter().collect();
    for d in before.iter().filter(|d| !d.visible) {
        if own.contains(&d.pointer) || collateral.iter().any(|c| c.pointer == d.pointer) {
            continue;
        }
        if ignore::rule_hiding(&rule_refs, &d.segs, d.compared_value()).is_some() {
            collateral.push(Collateral::of(
                &subject.key.to_string(),
                d,
                false,
                "application",
            ));
        }
    }
    let respect = fix.ignore.as_ref().is_some_and(|s| s.respect);
    if let (Some(git), Some(live)) = (subject.git, subject.live) {
        let ignored: Vec<Vec<path::Seg>> = before
            .iter()
            .filter(|d| own.contains(&d.pointer))
            .map(|d| d.segs.clone())
            .collect();
        note_sync_effects(
            fix,
            crate::sync_effects::of_ignore_fix(
                subject.key,
                git,
                live,
                &ignored,
                respect,
                subject.copts.release,
                subject.crd,
            ),
        );
    }
    let what = if respect {
        "with the rule in the Application's ignoreDifferences (with RespectIgnoreDifferences=true a sync also keeps the owner's live value instead of writing Git's)"
    } else {
        "with the rule in the Application's ignoreDifferences"
    };
    let (v, text) = judge(what, &outcome(before, own, &after));
    fix.verified = v;
    fix.verification = text;
    if let Some(unsafe_hiding) = unsafe_collateral(subject.key, &collateral) {
        fix.warning = Some(match fix.warning.take() {
            Some(transit) => format!("{unsafe_hiding} {transit}"),
            None => unsafe_hiding,
        });
    }
    fix.collateral = collateral;
    Some(after)
}

/// Why hiding these differences is not safe: drift, or a security-relevant field.
fn unsafe_collateral(key: &ResourceKey, collateral: &[Collateral]) -> Option<String> {
    if let Some(c) = collateral.iter().find(|c| c.cause == Cause::Drift) {
        return Some(format!(
            "It would also hide {} of {}, a real change (drift): never ignore drift.",
            crate::text::field_code(&c.segs),
            c.resource
        ));
    }
    collateral.iter().find_map(|c| {
        sensitive_reason(key, &c.pointer).map(|why| {
            format!(
                "It would also hide {} of {}, a security-relevant field ({why}).",
                crate::text::field_code(&c.segs),
                c.resource
            )
        })
    })
}

/// The order fixes are preferred in when several resolve: a change to Git
/// ends the cause, a deterministic render too, an ignore rule only hides it.
fn preference(kind: FixKind) -> u8 {
    match kind {
        FixKind::Git => 0,
        FixKind::Render => 1,
        FixKind::SyncOrder => 2,
        FixKind::Ignore => 3,
    }
}

/// Mark one fix per group of differences (the fixes of one rule share
/// them) as recommended: the preferred one that resolves with no collateral
/// and no warning. Drift gets none: it needs a sync or a change in Git.
fn recommend(fixes: &mut [Fix]) {
    let pointer_sets: Vec<BTreeSet<&str>> = fixes
        .iter()
        .map(|f| f.pointers.iter().map(String::as_str).collect_by_insertion())
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, f) in fixes.iter().enumerate() {
        let overlaps = |g: &Vec<usize>| {
            g.iter().any(|&j| {
                fixes[j].cause == f.cause && !pointer_sets[j].is_disjoint(&pointer_sets[i])
            })
        };
        match groups.iter_mut().find(|g| overlaps(g)) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    for g in groups {
        let best = g
            .iter()
            .copied()
            .filter(|&i| {
                let f = &fixes[i];
                f.cause != Cause::Drift
                    && f.verified == Verified::Resolves
                    && f.collateral.is_empty()
                    && f.warning.is_none()
            })
            .min_by_key(|&i| preference(fixes[i].kind));
        if let Some(i) = best {
            fixes[i].recommended = true;
        }
    }
}

/// What still differs once every recommended fix of the resource is applied
/// together (ignore rules and Git changes at once).
fn remaining_after(
    subject: &Subject,
    before: &[Difference],
    fixes: &[Fix],
    afters: &[Option<Vec<Difference>>],
    recompare: &Recompare,
) -> Vec<Difference> {
    let chosen: Vec<usize> = (0..fixes.len()).filter(|&i| fixes[i].recommended).collect();
    match chosen[..] {
        [] => return before.iter().filter(|d| d.visible).cloned().collect(),
        // One fix alone: its verification made this very comparison.
        [only] => {
            if let Some(after) = &afters[only] {
                return after.iter().filter(|d| d.visible).cloned().collect();
            }
        }
        _ => {}
    }
    let chosen: Vec<&Fix> = chosen.into_iter().map(|i| &fixes[i]).collect();
    let mut copts = subject.copts.clone();
    let mut git = subject.git.cloned();
    for f in &chosen {
        match f.kind {
            FixKind::Ignore => {
                copts
                    .ignore_rules
                    .extend(fix_rule(f, FixForm::Application, subject.copts));
            }
            FixKind::Git | FixKind::Render => {
                let change = if f.kind == FixKind::Render {
                    Some(GitChange::WriteLive)
                } else {
                    f.git_change
                };
                if let (Some(change), Some(g)) = (change, git.as_ref()) {
                    let paths = change_paths(before, f, change);
                    git = Some(apply_git_change(g, subject.live, change, &paths).0);
                }
            }
            FixKind::SyncOrder => {}
        }
    }
    let live = match (subject.live, git.as_ref()) {
        (Some(l), Some(g)) if git.as_ref() != subject.git => Some(after_sync(l, g)),
        (l, _) => l.cloned(),
    };
    recompare(git.as_ref(), live.as_ref(), &copts)
        .into_iter()
        .filter(|d| d.visible)
        .collect()
}

/// How many of the differences an argocd-cm form hides elsewhere are listed
/// in a fix's collateral (the count says how many there are).
const INSTANCE_WIDE_SHOWN: usize = 10;

/// For each ignore fix, the other objects of its group and kind in the input
/// (its argocd-cm form covers them all) and the differences there it would
/// also hide. Fixes of one kind mostly share their argocd-cm form, so each
/// form is applied to the objects of its kind once.
pub fn instance_wide(resources: &mut [ResourceReport], copts: &CompareOptions) {
    let mut by_kind: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, r) in resources.iter().enumerate() {
        by_kind
            .entry((r.group.clone(), r.kind.clone()))
            .or_default()
            .push(i);
    }
    // (group, kind, pointers, jq paths of the argocd-cm form) -> what it
    // hides: (object, difference)
    type FormKey = (String, String, Vec<String>, Vec<String>);
    let mut hidden_by_form: BTreeMap<FormKey, Vec<(usize, Collateral)>> = BTreeMap::new();
    let mut updates: Vec<(usize, usize, usize, Vec<Collateral>, usize)> = Vec::new();
    for (ri, r) in resources.iter().enumerate() {
        let kind = (r.group.clone(), r.kind.clone());
        let same_kind = by_kind.get(&kind).map_or(&[][..], Vec::as_slice);
        for (fi, f) in r.fixes.iter().enumerate() {
            if f.kind != FixKind::Ignore {
                continue;
            }
            let Some(rule) = fix_rule(f, FixForm::ArgocdCm, copts) else {
                continue;
            };
            let form = (
                kind.0.clone(),
                kind.1.clone(),
                rule.json_pointers.clone(),
                rule.jq_path_expressions.clone(),
            );
            let hidden = hidden_by_form.entry(form).or_insert_with(|| {
                let refs = [&rule];
                let mut out = Vec::new();
                for &oi in same_kind {
                    let other = &resources[oi];
                    for d in &other.differences {
                        if ignore::rule_hiding(&refs, &d.segs, d.compared_value()).is_some() {
                            out.push((oi, Collateral::of(&other.id, d, d.visible, "argocd-cm")));
                        }
                    }
                }
                out
            });
            let shown = hidden
                .iter()
                .filter(|(oi, _)| *oi != ri)
                .map(|(_, c)| c.clone())
                .take(INSTANCE_WIDE_SHOWN)
                .collect();
            // `hidden` lists objects in order, so this one's own entries sit
            // together: counting the others does not walk the whole list for
            // every object of the kind.
            let own = hidden.partition_point(|(oi, _)| *oi <= ri)
                - hidden.partition_point(|(oi, _)| *oi < ri);
            updates.push((
                ri,
                fi,
                same_kind.len().saturating_sub(1),
                shown,
                hidden.len() - own,
            ));
        }
    }
    for (ri, fi, others, shown, hidden) in updates {
        let fix = &mut resources[ri].fixes[fi];
        fix.instance_wide = others;
        fix.instance_wide_hidden = hidden;
        fix.collateral.extend(shown);
    }
}

/// Verify the fixes of a resource read from pasted diff output, where only
/// the changed lines are known: an ignore fix is applied to each change as
/// the user's rules are in that mode; a change to Git needs both objects.
/// Returns what still differs after the recommended fixes.
pub fn verify_text_resource(
    report: &mut ResourceReport,
    copts: &CompareOptions,
) -> Vec<Difference> {
    let key = ResourceKey {
        group: report.group.clone(),
        kind: report.kind.clone(),
        namespace: report.namespace.clone(),
        name: report.name.clone(),
    };
    let differences = report.differences.clone();
    let hides = |rules: &[IgnoreRule], d: &Difference| {
        let refs: Vec<&IgnoreRule> = rules.iter().filter(|r| r.applies_to(&key)).collect();
        ignore::rule_hiding(&refs, &d.segs, d.compared_value()).is_some()
    };
    let mut hidden_by_plan: Vec<IgnoreRule> = Vec::new();
    for fix in report.fixes.iter_mut() {
        if fix.kind != FixKind::Ignore {
            fix.verification = "Pasted diff output shows only the changed lines: paste the Git and live YAML to check this change by comparing again.".into();
            continue;
        }
        let Some(rule) = fix_rule(fix, FixForm::Application, copts) else {
            continue;
        };
        let rules = [rule];
        let own: BTreeSet<&str> = fix
            .pointers
            .iter()
            .map(String::as_str)
            .collect_by_insertion();
        let still: Vec<Difference> = differences
            .iter()
            .filter(|d| d.visible && own.contains(d.pointer.as_str()) && !hides(&rules, d))
            .cloned()
            .collect();
        fix.collateral = differences
            .iter()
            .filter(|d| !own.contains(d.pointer.as_str()) && hides(&rules, d))
            .map(|d| Collateral::of(&report.id, d, d.visible, "application"))
            .collect();
        let (v, text) = judge(
            "with the rule applied to the changes the diff shows",
            &Outcome {
                still,
                new: Vec::new(),
            },
        );
        fix.verified = v;
        fix.verification = text;
        fix.warning = unsafe_collateral(&key, &fix.collateral);
    }
    recommend(&mut report.fixes);
    for f in report.fixes.iter().filter(|f| f.recommended) {
        hidden_by_plan.extend(fix_rule(f, FixForm::Application, copts));
    }
    differences
        .into_iter()
        .filter(|d| d.visible && !hides(&hidden_by_plan, d))
        .collect()
}
