//! The analysis pipeline: read both sides, pair resources, compare each
//! pair as Argo CD does, give every difference a cause, propose fixes.

#![warn(missing_docs)]

use crate::compare::{self, CompareOptions, RawDiff};
use crate::context::{tracked_app, InputContext};
use crate::identity::ResourceKey;
use crate::input::{
    parse_side, parse_side_deferring, DeferredField, Document, InputError, Preparsed, Side,
};
use crate::model::*;
use crate::object_options::ObjectOptions;
use crate::pairing::{created_by_controller, is_hook, is_skipped};
use crate::path;
use crate::rules;
use crate::secret_mask::SideText;
use crate::sorting::CollectByInsertion;
use crate::{fixes, secret_mask};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

mod diff_text;
pub use diff_text::{analyze_diff, analyze_diff_with};

/// What the analysis needs beyond the two inputs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The Application's destination namespace, for namespaced Git objects without one.
    pub namespace: Option<String>,
    /// How objects are compared: strategy and the user's Argo CD settings.
    pub compare: CompareOptions,
}

/// Evidence beyond the two sides: the Application with its status, and a
/// second render of the same commit.
#[derive(Debug, Clone, Copy, Default)]
pub struct Evidence<'a> {
    /// The Application (`argocd app get APP -o yaml`); its settings are
    /// applied by the caller ([`crate::application::Application::apply_to`]).
    pub application: Option<&'a crate::application::Application>,
    /// A second render of the same commit, as text.
    pub git_again: Option<&'a str>,
    /// The pasted events and logs ([`crate::evidence::read`]): who they say
    /// wrote each field, the sync loop they record, Argo CD's own errors.
    pub observed: Option<&'a crate::evidence::Observed>,
}

/// Analyse Git (desired) manifests against live objects.
pub fn analyze(git: &str, live: &str, opts: &Options) -> Result<Report, InputError> {
    analyze_with(git, live, opts, Evidence::default())
}

/// [`analyze`] with the evidence users also have: the report gains the
/// Application's sections, and fields the two renders disagree on are
/// explained as a non-deterministic render.
pub fn analyze_with(
    git: &str,
    live: &str,
    opts: &Options,
    evidence: Evidence<'_>,
) -> Result<Report, InputError> {
    let (git_docs, live_docs) = parse_both(git, live)?;
    let report = analyze_held(git, &git_docs, live, &live_docs, opts, evidence);
    drop_objects(git_docs, live_docs);
    report
}

/// [`analyze_with`] for texts the caller gives up: each text is freed once
/// it is read into objects, so the memory a large input needs at its peak is
/// that of its objects and of one text, not of both texts too. The sides are
/// read one after the other (each on every core), the larger first.
pub fn analyze_owned(
    git: String,
    live: String,
    opts: &Options,
    evidence: Evidence<'_>,
) -> Result<Report, InputError> {
    let masks = secret_mask::Masks::default();
    // A side's text is kept only when it held no object (`KeptText`).
    let read = |text: String, side: Side| {
        let docs = read_side(&text, side)?;
        masks.reserve_masks_in(&text);
        let kept = if docs.is_empty() {
            KeptText::Held(text)
        } else {
            KeptText::Freed {
                may_spell_secret: secret_mask::may_spell_secret(&text),
            }
        };
        Ok::<_, InputError>((docs, kept))
    };
    let (live, git) = if live.len() >= git.len() {
        let live = read(live, Side::Live);
        (live, read(git, Side::Git))
    } else {
        let git = read(git, Side::Git);
        (read(live, Side::Live), git)
    };
    // Git's error first, as when the sides are read together.
    let ((git_docs, git), (live_docs, live)) = (git?, live?);
    let report = analyze_parsed(
        masks,
        git.side_text(),
        &git_docs,
        live.side_text(),
        &live_docs,
        opts,
        evidence,
    );
    drop_objects(git_docs, live_docs);
    report
}

/// What [`analyze_owned`] keeps of a side's text once it is read.
enum KeptText {
    /// The text, when no object came from it: the masks read it.
    Held(String),
    /// Freed; the masks need only know whether it could spell "secret".
    Freed { may_spell_secret: bool },
}

impl KeptText {
    fn side_text(&self) -> SideText<'_> {
        match self {
            KeptText::Held(text) => SideText::Held(text),
            KeptText::Freed { may_spell_secret } => SideText::Freed {
                may_spell_secret: *may_spell_secret,
            },
        }
    }
}

/// Both sides' objects.
fn parse_both(git: &str, live: &str) -> Result<(Vec<Document>, Vec<Document>), InputError> {
    // Both sides at once (each on every core as well), so one side's
    // serial steps overlap the other's; the rule catalogue is read once per
    // process, meanwhile.
    let (git_docs, live_docs) = crate::parallel::join(
        || parse_side(git, Side::Git),
        || {
            let live_docs = read_side(live, Side::Live);
            let _ = rules::catalog();
            live_docs
        },
    );
    Ok((git_docs?, live_docs?))
}

/// One side's objects; live bookkeeping that only a differing object needs
/// is parsed when [`report_resource`] asks for it.
fn read_side(text: &str, side: Side) -> Result<Vec<Document>, InputError> {
    match side {
        Side::Live => parse_side_deferring(text, side),
        _ => parse_side(text, side),
    }
}

/// Freeing thousands of objects is work too: not the caller's.
fn drop_objects(git_docs: Vec<Document>, live_docs: Vec<Document>) {
    let objects = git_docs.len() + live_docs.len();
    crate::parallel::drop_in_background((git_docs, live_docs), objects);
}

/// The sides last parsed, kept so that analysing again after one side
/// changed (a user pastes Git, then live; or edits one side) parses only
/// what changed. Holds the texts and their objects until replaced.
#[derive(Default)]
pub struct ParseCache {
    git: Option<ParsedSide>,
    live: Option<ParsedSide>,
}

struct ParsedSide {
    text: String,
    docs: Vec<Document>,
}

impl ParsedSide {
    /// The objects of `text` as `side`: those `slot` holds when it holds
    /// this very text, else parsed (taking the units `preparsed` holds) and
    /// then held.
    fn of<'c>(
        slot: &'c mut Option<ParsedSide>,
        text: &str,
        side: Side,
        preparsed: &Preparsed,
    ) -> Result<&'c [Document], InputError> {
        if slot.as_ref().is_none_or(|p| p.text != text) {
            // The old objects go before the new ones are made.
            *slot = None;
            let docs = crate::input::parse_side_preparsed(text, side, preparsed)?;
            *slot = Some(ParsedSide {
                text: text.to_string(),
                docs,
            });
        }
        Ok(slot.as_ref().map_or(&[][..], |p| p.docs.as_slice()))
    }
}

impl ParseCache {
    /// The slot of `side`; the diff text and the second render are never
    /// held (each analysis reads them).
    fn slot(&mut self, side: Side) -> Option<&mut Option<ParsedSide>> {
        match side {
            Side::Git => Some(&mut self.git),
            Side::Live => Some(&mut self.live),
            Side::Diff | Side::SecondRender => None,
        }
    }

    /// The text of `side` whose objects are held.
    pub fn text(&self, side: Side) -> Option<&str> {
        self.held(side).map(|(text, _)| text)
    }

    /// The objects held for `side`, with the text they were parsed from.
    pub fn held(&self, side: Side) -> Option<(&str, &[Document])> {
        let held = match side {
            Side::Git => &self.git,
            Side::Live => &self.live,
            Side::Diff | Side::SecondRender => &None,
        };
        held.as_ref().map(|h| (h.text.as_str(), h.docs.as_slice()))
    }

    /// Whether `side`'s objects for `text` are held.
    pub fn holds(&self, side: Side, text: &str) -> bool {
        self.text(side) == Some(text)
    }

    /// Let go of `side`'s objects (about to be replaced: freeing them first
    /// keeps two sets from being held at once).
    pub fn forget(&mut self, side: Side) {
        if let Some(slot) = self.slot(side) {
            *slot = None;
        }
    }

    /// Parse `side` now (unless held), taking the units `preparsed` holds;
    /// a later analysis of the same text parses it no more. An error is not
    /// kept: that analysis parses again and reports it.
    pub fn prepare(&mut self, side: Side, text: &str, preparsed: &Preparsed) {
        if let Some(slot) = self.slot(side) {
            let _ = ParsedSide::of(slot, text, side, preparsed);
        }
    }
}

/// [`analyze_with`], parsing only the sides `cache` does not hold already.
pub fn analyze_cached(
    cache: &mut ParseCache,
    git: &str,
    live: &str,
    opts: &Options,
    evidence: Evidence<'_>,
) -> Result<Report, InputError> {
    let none = Preparsed::default();
    let git_docs = ParsedSide::of(&mut cache.git, git, Side::Git, &none)?;
    let live_docs = ParsedSide::of(&mut cache.live, live, Side::Live, &none)?;
    analyze_held(git, git_docs, live, live_docs, opts, evidence)
}

/// [`analyze_parsed`] while both sides' texts are still held.
fn analyze_held(
    git: &str,
    git_docs: &[Document],
    live: &str,
    live_docs: &[Document],
    opts: &Options,
    evidence: Evidence<'_>,
) -> Result<Report, InputError> {
    let masks = secret_mask::Masks::reserving(&[git, live]);
    analyze_parsed(
        masks,
        SideText::Held(git),
        git_docs,
        SideText::Held(live),
        live_docs,
        opts,
        evidence,
    )
}

/// The analysis of parsed sides. `masks` has reserved the masks both
/// sides' texts hold ([`secret_mask::Masks::reserving`]); `git` and `live`
/// are their texts where still held (needed only by a side that held no
/// object), or what the masks need to know of a text given up. Masks are
/// numbered as a link of these texts numbers them.
fn analyze_parsed(
    masks: secret_mask::Masks,
    git: SideText<'_>,
    git_docs: &[Document],
    live: SideText<'_>,
    live_docs: &[Document],
    opts: &Options,
    evidence: Evidence<'_>,
) -> Result<Report, InputError> {
    let again_docs = match evidence.git_again {
        Some(text) => parse_side(text, Side::SecondRender)?,
        None => Vec::new(),
    };
    // Masks numbered as a link of these texts numbers them, so the sender sees what the receiver will.
    // The second render's values are numbered after both sides', before the
    // comparison starts (it runs on several threads).
    let mut sides = vec![(git, git_docs), (live, live_docs)];
    if let Some(text) = evidence.git_again {
        masks.reserve_masks_in(text);
        sides.push((SideText::Held(text), again_docs.as_slice()));
    }
    let masks = || masks.numbering_sides(&sides);
    let again = evidence.git_again.map(|_| again_docs.as_slice());
    let named = evidence
        .application
        .map(|a| a.name())
        .filter(|n| !n.is_empty());
    let mut report = analyze_masked(
        git_docs,
        live_docs,
        again,
        named,
        opts,
        masks,
        evidence.observed,
    )?;
    if let Some(app) = evidence.application {
        with_application(&mut report, app, opts);
    }
    with_observed(&mut report, evidence.observed);
    let objects = again_docs.len();
    crate::parallel::drop_in_background(again_docs, objects);
    Ok(report)
}

/// Below this many resources, comparing them on one thread is quicker than
/// starting more.
const PARALLEL_PAIRS: usize = 64;

/// A resource to report: its key and whichever sides exist.
struct Pair<'a> {
    key: &'a ResourceKey,
    git: Option<&'a Value>,
    live: Option<&'a Value>,
    /// Live fields not read yet (see [`crate::input::DeferredField`]).
    deferred: &'a [DeferredField],
}

/// Analyse parsed sides. Fails when one side holds the same object twice
/// with different content: which copy counts would depend on their order.
pub fn analyze_documents(
    git_docs: &[Document],
    live_docs: &[Document],
    opts: &Options,
) -> Result<Report, InputError> {
    analyze_masked(
        git_docs,
        live_docs,
        None,
        None,
        opts,
        secret_mask::Masks::default,
        None,
    )
}

/// What the input says of itself ([`InputContext`]): each paired object
/// learned, live first, and the second render's objects.
fn learn_context(
    paired: &crate::pairing::Paired<'_>,
    git_again: Option<&[Document]>,
    opts: &Options,
    observed: Option<&crate::evidence::Observed>,
) -> Result<InputContext, InputError> {
    let mut ctx = InputContext::default();
    ctx.observed = observed.map(|o| std::sync::Arc::new(o.clone()));
    if let Some(again) = git_again {
        let second = crate::pairing::pair(again, &[], opts.namespace.as_deref())?;
        ctx.second_render = Some(
            second
                .git
                .into_iter()
                .map(|(k, d)| (k, d.object.clone()))
                .collect_by_insertion(),
        );
    }
    for (key, d) in &paired.live {
        // A Job's status tells whether a hook failed: read it now.
        if key.group == "batch" && key.kind == "Job" {
            ctx.learn(key, &d.hydrated(), false);
        } else {
            ctx.learn(key, &d.object, false);
        }
    }
    for (key, d) in &paired.git {
        ctx.learn(key, &d.object, true);
    }
    Ok(ctx)
}

/// `masks` numbers the Secret values; it runs while the objects are paired and the context learned.
fn analyze_masked(
    git_docs: &[Document],
    live_docs: &[Document],
    git_again: Option<&[Document]>,
    named_app: Option<&str>,
    opts: &Options,
    masks: impl FnOnce() -> secret_mask::Masks + Send,
    observed: Option<&crate::evidence::Observed>,
) -> Result<Report, InputError> {
    // What the input says of itself is learned while the masks are
    // numbered: neither reads the other, and the learning runs on one core.
    let (learned, masks) = crate::parallel::join(
        || -> Result<_, InputError> {
            let paired = crate::pairing::pair(git_docs, live_docs, opts.namespace.as_deref())?;
            let ctx = learn_context(&paired, git_again, opts, observed)?;
            Ok((paired, ctx))
        },
        masks,
    );
    let ((paired, ctx), masks) = (learned?, &masks);
    let service_names: BTreeSet<(&str, &str)> = paired
        .live
        .keys()
        .filter(|k| k.group.is_empty() && k.kind == "Service")
        .map(|k| (k.namespace.as_str(), k.name.as_str()))
        .collect_by_insertion();
    let app = ctx.application.clone();
    let app_tracks_objects = app.is_some();
    // The audit compares every object again under other settings: it reads
    // them whole. (`collect`, not insertion: the keys come sorted and may be
    // thousands, built into the tree in bulk.)
    let whole_live: BTreeMap<&ResourceKey, Value> = if opts.compare.ignore_rules.is_empty() {
        BTreeMap::new()
    } else {
        paired
            .live
            .iter()
            .filter(|(_, d)| !d.deferred.is_empty())
            .map(|(k, d)| (k, d.hydrated().into_owned()))
            .collect()
    };

    let mut skipped = 0;
    let mut excluded: Vec<String> = Vec::new();
    let mut pairs: Vec<Pair> = Vec::new();
    // In key order, as both maps are.
    for (key, git, live) in crate::sorting::side_by_side(paired.git.iter(), paired.live.iter()) {
        let (live, deferred) = match (whole_live.get(key), live) {
            (Some(whole), _) => (Some(whole), &[][..]),
            (None, Some(d)) => (Some(&d.object), d.deferred.as_slice()),
            (None, None) => (None, &[][..]),
        };
        if !opts.compare.compare_stock_excluded_kinds
            && crate::pairing::excluded_kind(&opts.compare, &key.group, &key.kind)
        {
            skipped += 1;
            if git.is_some() {
                excluded.push(key.to_string());
            }
            continue;
        }
        if let Some(g) = git {
            let g = &g.object;
            // Hooks are split off before the comparison; a skipped resource is
            // compared but never counts in the sync status (argo-cd CompareAppState).
            if is_hook(g) || is_skipped(g) {
                skipped += 1;
                continue;
            }
            pairs.push(Pair {
                key,
                git: Some(g),
                live,
                deferred,
            });
            continue;
        }
        let Some(l) = live else { continue };
        let tracked = tracked_app(l);
        let other_app = tracked.as_ref().is_some_and(|a| Some(a) != app.as_ref());
        let untracked = app_tracks_objects && tracked.is_none();
        if created_by_controller(key, l, &service_names) || other_app || untracked || is_hook(l) {
            skipped += 1;
            continue;
        }
        pairs.push(Pair {
            key,
            git: None,
            live: Some(l),
            deferred,
        });
    }

    let catalog = rules::catalog();
    let mut resources = Vec::with_capacity(pairs.len());
    let mut remaining = Vec::new();
    // Each pair is compared and its fixes verified on its own: in parallel
    // natively, in order in the page's worker; results keep the pairs' order.
    let outcomes = crate::parallel::map_ordered(
        pairs.iter().collect(),
        PARALLEL_PAIRS,
        |_| 1,
        |pair: &Pair| report_resource(pair, &ctx, catalog, &opts.compare, masks),
    );
    for (resource, left) in outcomes {
        if !left.is_empty() {
            remaining.push((resource.id.clone(), left));
        }
        resources.push(resource);
    }
    crate::verify::instance_wide(&mut resources, &opts.compare);
    let mut report = build_report(resources, skipped, app, named_app, opts.compare.release);
    let app_name = fragment_app_name(&report, named_app);
    report.plan = crate::plan::build(&report, &remaining, &app_name);
    if !opts.compare.ignore_rules.is_empty() {
        let subjects: Vec<crate::audit::AuditSubject> = pairs
            .iter()
            .map(|p| crate::audit::AuditSubject {
                key: p.key,
                git: p.git,
                live: p.live,
            })
            .collect();
        let recompare =
            |key: &ResourceKey, git: Option<&Value>, live: Option<&Value>, c: &CompareOptions| {
                differences_of(key, git, live, &ctx, catalog, c, masks).1
            };
        report.audit = crate::audit::audit_rules(&subjects, &opts.compare, &recompare, &app_name);
    }
    report.warnings = comparison_warnings(&opts.compare);
    report
        .warnings
        .extend(release_warnings(&pairs, &opts.compare));
    if !excluded.is_empty() && opts.compare.resource_filter.is_some() {
        report.warnings.push(format!(
            "Not compared: {} (in Git) of a kind your argocd-cm's `resource.exclusions` / `resource.inclusions` leave out (or one Argo CD always leaves out, such as Event and Lease): Argo CD neither compares nor syncs it and shows the Application an ExcludedResourceWarning; remove it from Git, or change those settings if it must be synced.",
            excluded.join(", ")
        ));
    } else if !excluded.is_empty() {
        report.warnings.push(format!(
            "Not compared: {} (in Git) of a kind the argocd-cm Argo CD {} installs with excludes (`resource.exclusions`, argo-cd PR #21635): Argo CD neither compares nor syncs it and shows the Application an ExcludedResourceWarning; remove it from Git, or take the kind out of `resource.exclusions` if it must be synced.",
            excluded.join(", "),
            opts.compare.release
        ));
    }
    Ok(report)
}

/// What the imitated release does to this app that no difference can
/// show: a comparison that fails before 3.2 (gitops-engine PR #747), and
/// `resourceVersion` flapping under server-side diff with
/// `IncludeMutationWebhook=true` before 3.3.11 / 3.4.0 (argo-cd PR #27406),
/// which depends on when the object is written, not on the input.
fn release_warnings(pairs: &[Pair], copts: &CompareOptions) -> Vec<String> {
    use crate::argocd_release::Behaviour;
    let mut out = Vec::new();
    let refused: Vec<String> = pairs
        .iter()
        .filter_map(|p| {
            let field = compare::refused_dry_run(p.key, p.git?, copts)?;
            Some(format!("{} (`{field}`)", p.key))
        })
        .collect();
    if !refused.is_empty() {
        out.push(format!(
            "Argo CD {} cannot compare this app: under server-side diff it applies the ignore rules to desired before the dry run, and the API server refuses {} without the required field the rules remove (`ComparisonError ... Required value`). The Application is Unknown and shows no difference until the rule no longer covers a required field or Argo CD is 3.2 or later (gitops-engine PR #747).",
            copts.release,
            refused.join(", ")
        ));
    }
    let flaps = copts.dry_run()
        && copts.include_mutation_webhook
        && !copts
            .release
            .has(Behaviour::ServerSideDiffDropsResourceVersion)
        && pairs.iter().any(|p| p.git.is_some() && p.live.is_some());
    if flaps {
        out.push(format!(
            "Argo CD {} compares `metadata.resourceVersion` under server-side diff with IncludeMutationWebhook=true: an object written between Argo CD's cache and its dry run shows OutOfSync until the next refresh, so the app can flap whatever these manifests say (argo-cd PR #27406, fixed in 3.3.11 and 3.4.0).",
            copts.release
        ));
    }
    out
}

pub(crate) fn build_report(
    resources: Vec<ResourceReport>,
    skipped: usize,
    application: Option<String>,
    named_app: Option<&str>,
    release: crate::ArgoCdRelease,
) -> Report {
    let mut causes: BTreeMap<Cause, usize> = BTreeMap::new();
    for r in &resources {
        for d in r.differences.iter().filter(|d| d.visible) {
            *causes.entry(d.cause).or_default() += 1;
        }
    }
    let out_of_sync = resources
        .iter()
        .filter(|r| r.status == Status::OutOfSync)
        .count();
    let emergency = fixes::emergency_steps(&resources, application.as_deref().or(named_app));
    Report {
        version: REPORT_VERSION,
        argocd_version: release.to_string(),
        summary: Summary {
            resources: resources.len(),
            synced: resources.len() - out_of_sync,
            out_of_sync,
            skipped,
            causes,
            application,
        },
        emergency,
        warnings: Vec::new(),
        argocd_status: None,
        resources,
        plan: None,
        audit: Vec::new(),
        observed: None,
    }
}

/// One resource's report with every fix verified, and what still differs
/// once its recommended fixes are applied together.
fn report_resource(
    pair: &Pair,
    ctx: &InputContext,
    catalog: &rules::Catalog,
    copts: &CompareOptions,
    masks: &secret_mask::Masks,
) -> (ResourceReport, Vec<Difference>) {
    if pair.deferred.is_empty() {
        return report_whole(pair, None, ctx, catalog, copts, masks);
    }
    // Compared without the deferred fields when the comparison reads none
    // of them; a Synced pair then never needs them.
    let compared = deferred_fields_unread(pair, copts)
        .then(|| compare_pair(pair.key, pair.git, pair.live, ctx, copts));
    if let Some((presence, raw)) = &compared {
        if raw.is_empty() {
            return (
                finish_resource(pair.key, *presence, Vec::new(), copts.release),
                Vec::new(),
            );
        }
    }
    // Who wrote each difference (and verifying the fixes) reads them.
    let mut live = pair.live.cloned().unwrap_or_default();
    crate::input::hydrate(&mut live, pair.deferred);
    let whole = Pair {
        live: Some(&live),
        deferred: &[],
        ..*pair
    };
    report_whole(&whole, compared, ctx, catalog, copts, masks)
}

/// Whether comparing `pair` without its live `status` and `managedFields`
/// finds a difference exactly when comparing with them does: under the
/// legacy diff, which reads neither (the server-side strategies read
/// `managedFields`), when `status` is ignored for the kind and Git declares
/// none, and no ignore rule trusts field managers. A pair found Synced so
/// needs them no more; one that differs keeps its comparison and reads them
/// for who wrote each field.
fn deferred_fields_unread(pair: &Pair, copts: &CompareOptions) -> bool {
    let (Some(git), Some(live)) = (pair.git, pair.live) else {
        return false;
    };
    let strategy = ObjectOptions::of(Some(git), Some(live)).strategy(copts.strategy, copts.release);
    strategy == compare::Strategy::Legacy
        && copts
            .ignore_resource_status_field
            .ignores(&pair.key.group, &pair.key.kind)
        && git.get("status").is_none()
        && copts
            .ignore_rules
            .iter()
            .all(|r| r.managed_fields_managers.is_empty())
}

/// [`report_resource`] of a pair read whole, given its comparison when
/// already made.
fn report_whole(
    pair: &Pair,
    compared: Option<(Presence, Vec<RawDiff>)>,
    ctx: &InputContext,
    catalog: &rules::Catalog,
    copts: &CompareOptions,
    masks: &secret_mask::Masks,
) -> (ResourceReport, Vec<Difference>) {
    let key = &pair.key;
    let (presence, raw) =
        compared.unwrap_or_else(|| compare_pair(key, pair.git, pair.live, ctx, copts));
    let differences = explain_all(key, presence, raw, pair.git, pair.live, ctx, catalog, masks);
    let mut report = finish_resource(key, presence, differences, copts.release);
    if report.fixes.is_empty() {
        let visible = report
            .differences
            .iter()
            .filter(|d| d.visible)
            .cloned()
            .collect();
        return (report, visible);
    }
    let recompare = |git: Option<&Value>, live: Option<&Value>, c: &CompareOptions| {
        differences_of(key, git, live, ctx, catalog, c, masks).1
    };
    let subject = crate::verify::Subject {
        key,
        git: pair.git,
        live: pair.live,
        copts,
        crd: ctx
            .crd(&key.group, &key.kind)
            .and_then(|c| c.served(&[pair.live, pair.git])),
    };
    let remaining = crate::verify::verify_resource(&subject, &mut report, &recompare);
    (report, remaining)
}

/// Compare one resource and give each difference its cause.
fn differences_of(
    key: &ResourceKey,
    git: Option<&Value>,
    live: Option<&Value>,
    ctx: &InputContext,
    catalog: &rules::Catalog,
    copts: &CompareOptions,
    masks: &secret_mask::Masks,
) -> (Presence, Vec<Difference>) {
    let (presence, raw) = compare_pair(key, git, live, ctx, copts);
    let differences = explain_all(key, presence, raw, git, live, ctx, catalog, masks);
    (presence, differences)
}

/// One resource compared: how it is present, and its raw differences.
fn compare_pair(
    key: &ResourceKey,
    git: Option<&Value>,
    live: Option<&Value>,
    ctx: &InputContext,
    copts: &CompareOptions,
) -> (Presence, Vec<RawDiff>) {
    let object = ObjectOptions::of(git, live);
    let (presence, raw): (Presence, Vec<RawDiff>) = match (git, live) {
        (Some(g), Some(l)) => {
            let crd = if crate::k8s::root(&key.group, &key.kind).is_none() {
                ctx.crd(&key.group, &key.kind)
            } else {
                None
            };
            let strategy = object.strategy(copts.strategy, copts.release);
            let own;
            let copts = if strategy == copts.strategy {
                copts
            } else {
                own = CompareOptions {
                    strategy,
                    ..copts.clone()
                };
                &own
            };
            let c = compare::compare_with_crd(key, g, l, copts, crd);
            let mut all = c.visible;
            all.extend(c.hidden);
            (Presence::Both, all)
        }
        (Some(g), None) => (
            Presence::GitOnly,
            vec![RawDiff {
                path: vec![],
                change: Change::Removed,
                git: Some(g.clone()),
                live: None,
                hidden_reason: None,
            }],
        ),
        (None, Some(l)) => (
            Presence::LiveOnly,
            vec![RawDiff {
                path: vec![],
                change: Change::Added,
                git: None,
                live: Some(l.clone()),
                hidden_reason: object
                    .ignore_extraneous
                    .then_some(crate::HiddenReason::IgnoreExtraneous),
            }],
        ),
        (None, None) => (Presence::Both, Vec::new()),
    };
    (presence, raw)
}

/// Each raw difference of one resource given its cause.
#[allow(clippy::too_many_arguments)]
fn explain_all(
    key: &ResourceKey,
    presence: Presence,
    raw: Vec<RawDiff>,
    git: Option<&Value>,
    live: Option<&Value>,
    ctx: &InputContext,
    catalog: &rules::Catalog,
    masks: &secret_mask::Masks,
) -> Vec<Difference> {
    let mut differences: Vec<Difference> = raw
        .into_iter()
        .map(|d| classify(key, presence, d, git, live, ctx, catalog, true, masks, None))
        .collect();
    hold_back_by_refused_apply(&mut differences, catalog, |_, d, refused| {
        classify(
            key,
            presence,
            raw_of(d),
            git,
            live,
            ctx,
            catalog,
            true,
            masks,
            Some(refused),
        )
    });
    differences
}

/// A reported difference as the comparison gave it, to explain it again.
fn raw_of(d: &Difference) -> RawDiff {
    RawDiff {
        path: d.segs.clone(),
        change: d.change,
        git: d.git.clone(),
        live: d.live.clone(),
        hidden_reason: d.hidden_reason.clone(),
    }
}

/// When the API server refuses the apply of an object (Git changed one of
/// its immutable fields: a rule with `refuses_sync`), none of Git's other
/// changes to it reach the cluster either: explain its real-drift verdicts
/// again knowing that (a person's or program's writes stay what they are).
/// Secret values are left as they are: the report holds them masked.
fn hold_back_by_refused_apply(
    differences: &mut [Difference],
    catalog: &rules::Catalog,
    explain_again: impl Fn(usize, &Difference, &str) -> Difference,
) {
    let refused = differences.iter().find(|d| {
        d.visible
            && catalog
                .get(&d.rule)
                .is_some_and(|r| r.refuses_sync && r.cause == Cause::SyncOrdering)
    });
    let Some(refused) = refused else { return };
    let refused = crate::text::field_words(&refused.segs);
    for (i, d) in differences.iter_mut().enumerate() {
        let masked = [&d.git, &d.live]
            .into_iter()
            .flatten()
            .any(|v| v.as_str().is_some_and(secret_mask::is_already_masked));
        if d.cause == Cause::Drift && !d.by_hand && !masked {
            *d = explain_again(i, d, &refused);
        }
    }
}

pub(crate) fn finish_resource(
    key: &ResourceKey,
    presence: Presence,
    differences: Vec<Difference>,
    release: crate::ArgoCdRelease,
) -> ResourceReport {
    let status = if differences.iter().any(|d| d.visible) {
        Status::OutOfSync
    } else {
        Status::Synced
    };
    let fixes = fixes::fixes_for(key, &differences, release);
    ResourceReport {
        id: key.to_string(),
        group: key.group.clone(),
        kind: key.kind.clone(),
        namespace: key.namespace.clone(),
        name: key.name.clone(),
        status,
        presence,
        differences,
        fixes,
    }
}

/// Give one difference its cause, rule, confidence and evidence
/// ([`rules::explain`]), with its values masked as the report shows them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn classify(
    key: &ResourceKey,
    presence: Presence,
    d: RawDiff,
    git_obj: Option<&Value>,
    live_obj: Option<&Value>,
    ctx: &InputContext,
    catalog: &rules::Catalog,
    certain: bool,
    masks: &secret_mask::Masks,
    refused_with: Option<&str>,
) -> Difference {
    let pointer = path::pointer(&d.path);
    let kind = secret_mask::kind_for_masking(&key.kind, [git_obj, live_obj]);
    let secret = secret_mask::is_secret_pointer(kind, &pointer);
    let mask = |v: Option<Value>| -> Option<Value> {
        v.map(|v| secret_mask::mask_pointer_value(masks, kind, &pointer, v))
    };
    let explanation = rules::explain::explain(
        catalog,
        &rules::explain::Facts {
            key,
            presence,
            path: &d.path,
            change: d.change,
            git: d.git.as_ref(),
            live: d.live.as_ref(),
            git_obj,
            live_obj,
            input: ctx,
            certain,
            secret,
            refused_with,
        },
    );
    let visible = d.hidden_reason.is_none();
    let (git, live) = (mask(d.git), mask(d.live));
    Difference {
        jq: path::jq(&d.path),
        field: path::dotted(&d.path),
        pointer,
        change: d.change,
        git,
        live,
        visible,
        hidden_reason: d.hidden_reason,
        cause: explanation.cause,
        rule: explanation.rule,
        confidence: explanation.confidence,
        evidence: explanation.evidence,
        written_by: explanation.written_by,
        observed: explanation.observed,
        segs: d.path,
        pending_git_change: explanation.pending_git_change,
        by_hand: explanation.by_hand,
    }
}

/// What every report warns of how it compared, whatever was pasted: jq
/// expressions skipped, and a release whose patches differ.
fn comparison_warnings(compare: &CompareOptions) -> Vec<String> {
    let mut warnings = compare.jq.warnings();
    warnings.extend(compare.release.undecided_warning());
    warnings
}

/// The events' and logs' section, and what they skipped.
fn with_observed(report: &mut Report, observed: Option<&crate::evidence::Observed>) {
    if let Some(observed) = observed {
        report.observed = Some(crate::application::observed::report(observed, report));
        report.warnings.extend(observed.warnings.iter().cloned());
    }
}

/// The Application's sections.
fn with_application(report: &mut Report, app: &crate::application::Application, opts: &Options) {
    report.argocd_status =
        Some(app.status(report, opts.namespace.as_deref(), opts.compare.strategy));
}

/// The name the plan's and the audit's Application fragments carry: the app
/// the objects' tracking names, else the pasted Application's, else a
/// placeholder to replace.
fn fragment_app_name(report: &Report, named_app: Option<&str>) -> String {
    report
        .summary
        .application
        .as_deref()
        .or(named_app)
        .unwrap_or(crate::plan::APP_PLACEHOLDER)
        .to_string()
}
