//! The detectors of `drift-doctor check`: each finds, in the rendered
//! manifests (and the settings given), the places one check names.

use super::*;
use crate::sorting::CollectByInsertion;

/// CK001: Git pins `spec.replicas` of a workload a scaler of the render targets.
pub(super) fn replicas_pinned(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let path = [Seg::key("spec"), Seg::key("replicas")];
    ctx.objects
        .iter()
        .filter_map(|o| {
            let replicas = o.value.at("/spec/replicas")?;
            let mut vars = o.predicate(ctx, "autoscaler_targets", &path)?;
            vars.push(var("replicas", crate::text::value_text(replicas)));
            Some(o.hit(Some("/spec/replicas".into()), vars))
        })
        .collect()
}

/// The paths where two values differ: maps key by key, lists of one length
/// item by item, anything else whole.
fn differing(a: Option<&Value>, b: Option<&Value>, path: &mut Vec<String>, out: &mut Vec<String>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect_by_insertion();
            for k in keys {
                path.push(k.clone());
                differing(x.get(k), y.get(k), path, out);
                path.pop();
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                path.push(i.to_string());
                differing(Some(p), Some(q), path, out);
                path.pop();
            }
        }
        (a, b) if a != b => out.push(pointer_of(path)),
        _ => {}
    }
}

/// CK002: the two renders of the same commit disagree on a field, or hold
/// an object the other lacks (a generated name).
pub(super) fn renders_disagree(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let Some(second) = &ctx.second else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for o in &ctx.objects {
        let Some(other) = second.get(&o.key) else {
            hits.push(o.hit(
                None,
                vec![
                    var("field", "the whole object"),
                    var("first", "present"),
                    var("second", "absent (its name differs between the renders?)"),
                    var(
                        "functions",
                        "a generated name (`randAlphaNum` or `now` in `metadata.name`)",
                    ),
                    var("git_fix", "Give the object a fixed name in the template."),
                ],
            ));
            continue;
        };
        let other = other.value;
        let mut out = Vec::new();
        differing(Some(o.value), Some(other), &mut Vec::new(), &mut out);
        for pointer in out {
            let (a, b) = (o.value.at(&pointer), other.at(&pointer));
            let (secret, secret_data) = is_secret_value(&o.key, o.value, &pointer);
            let (functions, git_fix) =
                crate::rules::second_render::generated_kind(a, b, secret, secret_data);
            // A Secret's values are never shown: only that they differ.
            let (first, second) = if secret {
                ("a secret value".to_string(), "a different one".to_string())
            } else {
                (short(a), short(b))
            };
            hits.push(o.hit(
                Some(pointer),
                vec![
                    var("first", first),
                    var("second", second),
                    var("functions", functions),
                    var("git_fix", git_fix),
                ],
            ));
        }
    }
    // Objects only the second render holds, named where that render has them.
    let first: BTreeSet<&ResourceKey> = ctx.objects.iter().map(|o| &o.key).collect_by_insertion();
    for (key, o) in second {
        if first.contains(key) {
            continue;
        }
        let mut h = o.hit(
            None,
            vec![
                var("field", "the whole object"),
                var("first", "absent (its name differs between the renders?)"),
                var("second", "present"),
                var(
                    "functions",
                    "a generated name (`randAlphaNum` or `now` in `metadata.name`)",
                ),
                var("git_fix", "Give the object a fixed name in the template."),
            ],
        );
        h.input = Input::GitAgain;
        hits.push(h);
    }
    hits
}

/// Whether a CronJob schedule names one minute and one hour, the minute
/// not a round one: what a schedule rendered from `now` looks like.
fn schedule_looks_rendered(s: &str) -> bool {
    let fields: Vec<&str> = s.split_whitespace().collect();
    let number = |t: &str| t.parse::<u32>().ok();
    match fields.as_slice() {
        [minute, hour, "*", "*", "*"] => {
            matches!((number(minute), number(hour)), (Some(m), Some(h)) if m < 60 && h < 24 && m % 5 != 0)
        }
        _ => false,
    }
}

/// CK003: a value of one render looks generated at render time.
pub(super) fn generated_value(ctx: &Ctx<'_>, c: &Check) -> Vec<Hit> {
    let patterns = patterns(c);
    let mut hits = Vec::new();
    for o in &ctx.objects {
        for (pointer, v) in matching(o.value, &patterns) {
            let Some(text) = v.as_str() else { continue };
            if text.is_empty() {
                continue;
            }
            let (secret, secret_data) = is_secret_value(&o.key, o.value, &pointer);
            let shape = if pointer == "/spec/schedule" {
                schedule_looks_rendered(text).then_some((
                    "a time of day",
                    "`now` (or `date`) formatted into the schedule",
                    "Write the schedule as a fixed value in Git or a values file.",
                ))
            } else {
                crate::rules::second_render::looks_generated(v, secret, secret_data).map(
                    |(shape, functions, fix)| {
                        let what = match shape {
                            "certificate" => "a certificate or key",
                            "random" => "a high-entropy secret value",
                            "uuid" => "a UUID",
                            _ => "a timestamp",
                        };
                        (what, functions, fix)
                    },
                )
            };
            let Some((what, functions, git_fix)) = shape else {
                continue;
            };
            hits.push(o.hit(
                Some(pointer),
                vec![
                    var("shape", what),
                    var("functions", functions),
                    var("git_fix", git_fix),
                ],
            ));
        }
    }
    hits
}

/// Whether an Application's sync options hold `SkipDryRunOnMissingResource=true`.
pub(super) fn skips_dry_run_in_app(text: &str) -> bool {
    let Ok(docs) = crate::input::parse_values(text, Side::Git) else {
        return false;
    };
    docs.iter().any(|(v, _, _)| {
        ["/spec/syncPolicy/syncOptions", "/syncPolicy/syncOptions"]
            .iter()
            .filter_map(|p| v.at(p).and_then(Value::as_array))
            .flatten()
            .any(|o| o.as_str() == Some("SkipDryRunOnMissingResource=true"))
    })
}

/// The destination namespace the Application creates before it syncs
/// anything (`CreateNamespace=true`), if it does.
pub(super) fn namespace_created_by_app(text: &str) -> Option<String> {
    let docs = crate::input::parse_values(text, Side::Git).ok()?;
    docs.iter().find_map(|(v, _, _)| {
        let creates = v
            .at("/spec/syncPolicy/syncOptions")
            .and_then(Value::as_array)
            .is_some_and(|o| o.iter().any(|o| o.as_str() == Some("CreateNamespace=true")));
        creates
            .then(|| v.at("/spec/destination/namespace").and_then(Value::as_str))
            .flatten()
            .filter(|ns| !ns.is_empty())
            .map(str::to_string)
    })
}

/// CK004: a custom resource in the same sync step as its CRD, with no
/// `SkipDryRunOnMissingResource=true` and no later wave.
pub(super) fn custom_resource_with_its_crd(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    if ctx.app_skips_dry_run {
        return Vec::new();
    }
    ctx.objects
        .iter()
        .filter_map(|o| {
            let vars = o.predicate(ctx, "crd_in_git", &[])?;
            let crd_wave: i64 = vars
                .iter()
                .find(|(k, _)| k == "crd_wave")
                .and_then(|(_, w)| w.trim().parse().ok())
                .unwrap_or(0);
            // A hook runs outside the waves: before the CRD when PreSync.
            let pre_sync = o.hook().is_some_and(is_pre_sync);
            let later = o.hook().is_none() && o.wave() > crd_wave;
            if later || o.has_sync_option("SkipDryRunOnMissingResource=true") {
                return None;
            }
            if o.hook().is_some() && !pre_sync {
                return None;
            }
            let step = if pre_sync {
                "a PreSync hook, which runs before the CRD is applied".to_string()
            } else {
                format!("wave {}", o.wave())
            };
            let mut vars = vars;
            vars.push(var("step", step));
            Some(o.hit(None, vars))
        })
        .collect()
}

/// Whether hook phases (Argo CD's or Helm's) run before the sync phase.
fn is_pre_sync(hook: &str) -> bool {
    hook.split(',')
        .any(|t| matches!(t.trim(), "PreSync" | "pre-install" | "pre-upgrade"))
}

/// CK005: a namespaced object synced before the Namespace the render creates.
pub(super) fn before_its_namespace(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let namespaces: BTreeMap<&str, &Obj<'_>> = ctx
        .objects
        .iter()
        .filter(|o| o.key.group.is_empty() && o.key.kind == "Namespace")
        .map(|o| (o.key.name.as_str(), o))
        .collect_by_insertion();
    let pre_sync = |o: &Obj<'_>| o.hook().is_some_and(is_pre_sync);
    ctx.objects
        .iter()
        .filter_map(|o| {
            // Argo CD creates the destination namespace before any wave.
            if ctx.app_creates_namespace.as_deref() == Some(o.key.namespace.as_str()) {
                return None;
            }
            let ns = namespaces.get(o.key.namespace.as_str())?;
            let earlier = o.wave() < ns.wave() || (pre_sync(o) && !pre_sync(ns));
            earlier.then(|| {
                o.hit(
                    None,
                    vec![
                        var("ns", ns.key.name.clone()),
                        var("wave", o.wave().to_string()),
                        var("ns_wave", ns.wave().to_string()),
                        var(
                            "step",
                            if pre_sync(o) {
                                "a PreSync hook, which runs before any resource".to_string()
                            } else {
                                format!("in wave {}", o.wave())
                            },
                        ),
                    ],
                )
            })
        })
        .collect()
}

/// CK006: a Job applied as a resource rather than run as a hook.
pub(super) fn job_not_a_hook(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.objects
        .iter()
        .filter(|o| o.key.group == "batch" && o.key.kind == "Job" && o.hook().is_none())
        .filter(|o| {
            o.annotation("argocd.argoproj.io/hook")
                .is_none_or(|h| h.trim() != "Skip")
        })
        // A Job whose hook annotations sit on its pod template is CK014's.
        .filter(|o| o.predicate(ctx, "hook_on_pod_template", &[]).is_none())
        .map(|o| o.hit(Some("/spec/template".into()), Vec::new()))
        .collect()
}

/// CK014: hook annotations on a pod template instead of the object.
pub(super) fn hook_on_pod_template(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.objects
        .iter()
        .filter_map(|o| {
            let vars = o.predicate(ctx, "hook_on_pod_template", &[])?;
            Some(o.hit(Some("/spec/template/metadata/annotations".into()), vars))
        })
        .collect()
}

/// CK007: a hook with a fixed name and no delete policy.
pub(super) fn hook_without_delete_policy(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.objects
        .iter()
        .filter(|o| o.hook().is_some() && o.value.at("/metadata/name").is_some())
        .filter_map(|o| {
            let vars = o.predicate(ctx, "hook_without_delete_policy", &[])?;
            Some(o.hit(Some("/metadata/annotations".into()), vars))
        })
        .collect()
}

/// CK008: a `caBundle` rendered where cert-manager's CA injector fills it.
pub(super) fn ca_bundle_injected(ctx: &Ctx<'_>, c: &Check) -> Vec<Hit> {
    let patterns = patterns(c);
    let mut hits = Vec::new();
    for o in &ctx.objects {
        let found = matching(o.value, &patterns);
        if found.is_empty() {
            continue;
        }
        let Some(vars) = o.predicate(ctx, "ca_injection_annotated", &[]) else {
            continue;
        };
        for (pointer, v) in found {
            let mut vars = vars.clone();
            vars.push(var(
                "value",
                if v.as_str() == Some("") {
                    "an empty string"
                } else {
                    "a value"
                },
            ));
            hits.push(o.hit(Some(pointer), vars));
        }
    }
    hits
}

/// CK009: `status` rendered in Git where the release compares it.
pub(super) fn status_in_git(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let mode = ctx.compare.ignore_resource_status_field;
    ctx.objects
        .iter()
        .filter(|o| {
            o.value.get("status").is_some_and(|s| {
                !(s.is_null() || s.as_object().is_some_and(serde_json::Map::is_empty))
            })
        })
        .filter(|o| !mode.ignores(&o.key.group, &o.key.kind))
        .map(|o| {
            o.hit(
                Some("/status".into()),
                vec![
                    var("setting", mode.id()),
                    var("release", ctx.compare.release.to_string()),
                ],
            )
        })
        .collect()
}

/// Remove the field at `pointer` from `obj` (nothing when it is not there).
fn remove_at(obj: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match obj.at_mut(parent) {
        Some(Value::Object(m)) => {
            m.remove(&key);
        }
        Some(Value::Array(a)) => {
            if let Ok(i) = key.parse::<usize>() {
                if i < a.len() {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
}

/// CK010: an empty value the API server does not store, where the release
/// compares it. Whether Argo CD sees the difference is not guessed: the
/// object is compared, as the analysis compares it, with the same object
/// without its empty values (what the API server keeps), and only the
/// fields that still differ are named (Argo CD's own round trip of a
/// built-in kind already drops some, such as an `env` value `""`).
pub(super) fn empty_value_dropped(ctx: &Ctx<'_>, c: &Check) -> Vec<Hit> {
    let patterns = patterns(c);
    let opts = crate::analyze::Options {
        namespace: None,
        compare: CompareOptions::for_release(ctx.compare.release),
    };
    let mut hits = Vec::new();
    for o in &ctx.objects {
        let empties: Vec<(String, &Value)> = matching(o.value, &patterns)
            .into_iter()
            .filter(|(_, v)| match v {
                Value::String(s) => s.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::Object(m) => m.is_empty(),
                Value::Null => true,
                _ => false,
            })
            .collect();
        if empties.is_empty() {
            continue;
        }
        let mut stored = o.value.clone();
        // From the last, so that list positions stay right.
        for (pointer, _) in empties.iter().rev() {
            remove_at(&mut stored, pointer);
        }
        let doc = |object: Value| crate::input::Document {
            object,
            document: o.document,
            line: o.line,
            deferred: Vec::new(),
        };
        let Ok(report) =
            crate::analyze::analyze_documents(&[doc(o.value.clone())], &[doc(stored)], &opts)
        else {
            continue;
        };
        let differing: BTreeSet<&str> = report
            .resources
            .iter()
            .flat_map(|r| &r.differences)
            .filter(|d| d.visible)
            .map(|d| d.pointer.as_str())
            .collect_by_insertion();
        for (pointer, v) in empties {
            if differing.contains(pointer.as_str()) {
                hits.push(o.hit(
                    Some(pointer),
                    vec![
                        var("value", crate::text::value_text(v)),
                        var("release", ctx.compare.release.to_string()),
                    ],
                ));
            }
        }
    }
    hits
}

/// Where a rule sits in its settings text: the pointer tokens of the rule
/// its `source` names (`Application shop spec.ignoreDifferences[1]`,
/// `ignoreDifferences[0]`, `argocd-cm resource.customizations...`).
fn rule_tokens(source: &str) -> Vec<Vec<String>> {
    let owned = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (path, index) = match source.rsplit_once('[') {
        Some((head, tail)) => match tail.strip_suffix(']').and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => (head, Some(n.to_string())),
            None => (source, None),
        },
        None => (source, None),
    };
    let last = path.rsplit(' ').next().unwrap_or(path);
    let with_index = |mut t: Vec<String>| {
        t.extend(index.clone());
        t
    };
    if last.starts_with("resource.") {
        return vec![owned(&["data", last]), owned(&[last])];
    }
    match last {
        "spec.ignoreDifferences" => vec![with_index(owned(&["spec", "ignoreDifferences"]))],
        "ignoreDifferences" => vec![
            with_index(owned(&["ignoreDifferences"])),
            with_index(Vec::new()),
        ],
        _ => Vec::new(),
    }
}

/// The 1-based line of a rule (or of its field `sub`, such as `group` or
/// `jsonPointers/0`) in its settings text; 1 when it cannot be placed.
fn rule_line(s: &SettingsInput<'_>, rule: &IgnoreRule, sub: &[&str]) -> usize {
    let Ok(docs) = crate::input::parse_values(s.text, Side::Git) else {
        return 1;
    };
    let lines = Lines::new(s.text);
    for tokens in rule_tokens(&rule.source) {
        for (value, _, line) in &docs {
            let pointer = pointer_of(&tokens);
            if !tokens.is_empty() && value.at(&pointer).is_none() {
                continue;
            }
            let mut deeper = tokens.clone();
            deeper.extend(sub.iter().map(|t| t.to_string()));
            return lines.field_line(*line, &deeper);
        }
    }
    1
}

fn settings_hit(s: &SettingsInput<'_>, line: usize, vars: Vec<(String, String)>) -> Hit {
    Hit {
        key: None,
        input: s.input,
        document: 0,
        line,
        pointer: None,
        vars,
    }
}

fn subjects<'c>(ctx: &'c Ctx<'_>) -> Vec<AuditSubject<'c>> {
    ctx.objects
        .iter()
        .map(|o| AuditSubject {
            key: &o.key,
            git: Some(o.value),
            live: None,
        })
        .collect()
}

/// CK011: an ignore rule that cannot match the render (a version in
/// `group`, a kind spelt differently, a `/` not written `~1`).
pub(super) fn rule_matches_nothing(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let subjects = subjects(ctx);
    let mut hits = Vec::new();
    for s in &ctx.settings {
        for rule in &s.rules {
            let applies = subjects.iter().any(|x| rule.applies_to(x.key));
            if !applies {
                // A rule for a kind the render lacks may serve another
                // state of the app; only the known mistakes are named.
                let (why, corrected) = crate::audit::why_no_object(rule, &subjects);
                if corrected.is_none() {
                    continue;
                }
                let field = if why.contains("group") {
                    "group"
                } else {
                    "kind"
                };
                let line = rule_line(s, rule, &[field]);
                hits.push(settings_hit(
                    s,
                    line,
                    vec![var("rule", rule.source.clone()), var("why", why)],
                ));
                continue;
            }
            let matched: Vec<&AuditSubject<'_>> =
                subjects.iter().filter(|x| rule.applies_to(x.key)).collect();
            let objects: Vec<&Value> = matched.iter().filter_map(|x| x.git).collect();
            for (i, p) in rule.json_pointers.iter().enumerate() {
                if let Some((why, _)) =
                    crate::audit::pointer_problem(p, &objects, matched.iter().copied())
                {
                    let index = i.to_string();
                    hits.push(settings_hit(
                        s,
                        rule_line(s, rule, &["jsonPointers", &index]),
                        vec![var("rule", rule.source.clone()), var("why", why)],
                    ));
                }
            }
        }
    }
    hits
}

/// CK012: an ignore rule that hides a security-relevant field of an object
/// of the render (judged by applying the rule, as Argo CD would).
pub(super) fn rule_hides_security_field(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    let mut hits = Vec::new();
    for s in &ctx.settings {
        for rule in &s.rules {
            let found = ctx
                .objects
                .iter()
                .filter(|o| rule.applies_to(&o.key))
                .find_map(|o| {
                    let mut after = o.value.clone();
                    rule.apply(&mut after);
                    let mut all = Vec::new();
                    nodes(o.value, &mut Vec::new(), &mut all);
                    all.iter().find_map(|(toks, _)| {
                        let pointer = pointer_of(toks);
                        if toks.is_empty() || after.at(&pointer).is_some() {
                            return None;
                        }
                        let why = crate::fixes::sensitive_reason(&o.key, &pointer)?;
                        Some((o, pointer, why))
                    })
                });
            if let Some((o, pointer, why)) = found {
                hits.push(settings_hit(
                    s,
                    rule_line(s, rule, &[]),
                    vec![
                        var("rule", rule.source.clone()),
                        var("field", crate::text::pointer_code(&pointer)),
                        var("id", o.key.to_string()),
                        var("why", why),
                    ],
                ));
            }
        }
    }
    hits
}

/// CK013: a jq expression of an ignore rule that does not compile.
pub(super) fn jq_does_not_compile(ctx: &Ctx<'_>, _: &Check) -> Vec<Hit> {
    ctx.settings
        .iter()
        .flat_map(|s| {
            s.refused_jq.iter().map(|e| {
                let mut h = settings_hit(s, e.line.max(1), vec![var("why", e.message.clone())]);
                h.document = e.document;
                h
            })
        })
        .collect()
}
