//! One batch of tool calls: announce each, prepare it, pass it through the gate (asking the
//! person as needed, through the pending-prompt broker), run what is allowed, record the result.
//! Reads that need no approval run up to four at a time; everything else runs in order.

use std::collections::HashSet;

use serde_json::Value;

use super::{READ_BATCH, Turn, history::StoredParts};
use super::{hooks, toolset};
use crate::pending::{ApprovalAnswer, ApprovalRequest, Asked};
use crate::policy::{self, Context, Decision, Proposal};
use crate::protocol::{ApprovalDecision, Effect, EventPayload};
use crate::provider::ToolCallReq;
use crate::store::NewApproval;
use crate::tools::{self, ToolCtx, ToolOutput};
use crate::util::new_id;

/// Reads that need no approval run up to four at a time; everything else runs in order. A call
/// that reused the id of an earlier call of the reply (`duplicates`, renamed since) is not run:
/// its result is an error naming the id.
pub(super) async fn run_calls(
    t: &mut Turn<'_>,
    calls: &[ToolCallReq],
    duplicates: &[super::history::DuplicateCall],
) {
    let duplicate = |i: usize| duplicates.iter().find(|d| d.index == i);
    let mut i = 0;
    while i < calls.len() {
        if t.run.cancel.is_cancelled() {
            for c in &calls[i..] {
                record_result(
                    t,
                    c,
                    &ToolOutput::err("cancelled", "the run was cancelled before this call ran"),
                    true,
                )
                .await;
            }
            return;
        }
        if let Some(d) = duplicate(i) {
            refuse_duplicate(t, &calls[i], &d.original).await;
            i += 1;
            continue;
        }
        let mut batch: Vec<(&ToolCallReq, Planned)> = Vec::new();
        while i + batch.len() < calls.len() && batch.len() < READ_BATCH {
            let c = &calls[i + batch.len()];
            if duplicate(i + batch.len()).is_some() {
                break;
            }
            match plain_read(t, c) {
                Some(p) => batch.push((c, Some(p))),
                None => break,
            }
        }
        let n = batch.len().max(1);
        if batch.len() > 1 {
            let tref: &Turn<'_> = t;
            futures::future::join_all(
                batch
                    .into_iter()
                    .map(|(c, p)| async move { handle_call(tref, c, p).await }),
            )
            .await;
        } else {
            let planned = batch.pop().and_then(|(_, p)| p);
            handle_call(t, &calls[i], planned).await;
        }
        i += n;
    }
}

/// A call that reused the id `original` of an earlier call of its reply: shown, audited and
/// answered with an error naming the id, never run (the earlier call with that id is the one
/// that runs).
async fn refuse_duplicate(t: &Turn<'_>, call: &ToolCallReq, original: &crate::protocol::CallId) {
    let effect = toolset::effect_of(&call.name);
    t.emit(EventPayload::ToolCall {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        effect,
        input: serde_json::from_str(&call.arguments)
            .unwrap_or_else(|_| Value::String(call.arguments.clone())),
        input_raw: None,
        input_error: None,
    });
    let why = format!(
        "an earlier call of this reply already has the id `{original}`; this call was not run. Give every call of a reply its own id, and send this one again if it is still needed"
    );
    let deny = crate::protocol::PolicyDecision::Deny;
    audit(t, call, effect, deny, &why, "duplicate_call_id").await;
    record_result(t, call, &ToolOutput::err("duplicate_call_id", why), true).await;
}

/// A call already parsed and prepared (so it is not done twice).
type Planned = Option<(Value, tools::Prepared)>;

/// A read whose every path is inside the roots (needs no approval): parsed and prepared, ready
/// to run alongside other such reads.
fn plain_read(t: &Turn<'_>, c: &ToolCallReq) -> Option<(Value, tools::Prepared)> {
    let d = toolset::descriptor(&c.name)?;
    // A tool this run is not offered goes the whole way, to be refused there.
    let opt_in = toolset::OPT_IN.iter().any(|o| o.name() == d.name());
    if d.effect() != Effect::Read || d.host() || t.hides_tool(d) || opt_in {
        return None;
    }
    let input: Value = serde_json::from_str(&c.arguments).ok()?;
    let p = d.prepare(&input, &t.paths).ok()?;
    p.paths.iter().all(|u| u.inside).then_some((input, p))
}

async fn record_result(t: &Turn<'_>, call: &ToolCallReq, out: &ToolOutput, in_history: bool) {
    t.emit(EventPayload::ToolResult {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        ok: out.ok,
        text: out.text.clone(),
        parts: out.parts.clone(),
    });
    if !in_history {
        return;
    }
    t.store_message(
        crate::protocol::MessageRole::Tool,
        StoredParts {
            call_id: call.id.to_string(),
            name: call.name.clone(),
            text: out.text.clone(),
            ..Default::default()
        },
    );
}

/// One call: announce, prepare, gate (asking as needed), execute, record.
pub(super) async fn handle_call(t: &Turn<'_>, call: &ToolCallReq, planned: Planned) -> ToolOutput {
    let span = tracing::info_span!("tool_call", tool = %call.name, call_id = %call.id);
    tracing::Instrument::instrument(handle_call_inner(t, call, planned, true), span).await
}

/// A call the model did not make itself (one `execute`'s snippet makes, a read an `@` mention
/// asks for): the same preparation and gate as a direct call, shown in the transcript, but
/// never asking (an approval it would need is a denial whose reason ends with `advice`) and not
/// part of the model's history (the snippet's result, or the prompt it is attached to, is).
pub(crate) async fn handle_nested(
    t: &Turn<'_>,
    call: &ToolCallReq,
    advice: &'static str,
) -> ToolOutput {
    let span = tracing::info_span!("nested_call", tool = %call.name, call_id = %call.id);
    *t.never_ask.lock() = Some(advice);
    let out = tracing::Instrument::instrument(handle_call_inner(t, call, None, false), span).await;
    *t.never_ask.lock() = None;
    out
}

/// A call's arguments as JSON, or why they cannot be read (its code and the reason the model
/// is told): not JSON, or a call written as text whose block could not be read at all.
fn unreadable_input(call: &ToolCallReq) -> Result<Value, (&'static str, String)> {
    if call.name == crate::provider::textcalls::UNREADABLE {
        return Err((
            "unreadable_call",
            format!(
                "this call could not be read, so nothing ran: write each call in the form the system prompt gives, its arguments one JSON object. What was written: {}",
                crate::util::truncate_str(&call.arguments, 2_000)
            ),
        ));
    }
    let text = if call.arguments.trim().is_empty() {
        "{}"
    } else {
        &call.arguments
    };
    serde_json::from_str(text).map_err(|e| {
        (
            "invalid_json",
            format!("the arguments are not valid JSON ({e}); send a JSON object"),
        )
    })
}

async fn handle_call_inner(
    t: &Turn<'_>,
    call: &ToolCallReq,
    planned: Planned,
    in_history: bool,
) -> ToolOutput {
    // The tool is looked up once, here (a planned call carries it).
    let found = match &planned {
        Some((_, p)) => p.descriptor,
        None => toolset::descriptor(&call.name),
    };
    let effect = found.map_or(Effect::External, |d| d.effect());
    let (input, planned) = match planned {
        Some((input, p)) => (input, Some(p)),
        None => match unreadable_input(call) {
            Ok(v) => (v, None),
            Err((code, why)) => {
                t.emit(EventPayload::ToolCall {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    effect,
                    input: Value::String(call.arguments.clone()),
                    input_raw: Some(call.arguments.clone()),
                    input_error: Some(why.clone()),
                });
                // Every refusal leaves an audit line, whatever stage refused.
                let deny = crate::protocol::PolicyDecision::Deny;
                audit(t, call, effect, deny, &why, code).await;
                let out = ToolOutput::err(code, why);
                record_result(t, call, &out, in_history).await;
                return out;
            }
        },
    };
    // A call that waited on a person when the server restarted was announced before it.
    if !(t.run.resumed && t.deps.prompts.parked(&t.run.run_id, &call.id)) {
        t.emit(EventPayload::ToolCall {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            effect,
            input: input.clone(),
            input_raw: None,
            input_error: None,
        });
    }
    let prepared = match planned {
        Some(p) => Ok(p),
        None => prepare(t, &call.name, found, &input),
    };
    let out = match prepared {
        Err(e) => {
            // Unknown tools, invalid arguments and refused paths are refusals like the gate's:
            // each leaves an audit line.
            let deny = crate::protocol::PolicyDecision::Deny;
            audit(t, call, effect, deny, &e.to_string(), e.code()).await;
            ToolOutput::err(e.code(), e)
        }
        Ok(prepared) => run_prepared(t, call, &input, prepared).await,
    };
    record_result(t, call, &out, in_history).await;
    out
}

/// Prepare a call: an MCP server's tool or a hub tool as offered in the latest model call, else
/// a built-in tool.
fn prepare(
    t: &Turn<'_>,
    name: &str,
    found: Option<&'static dyn tools::DynTool>,
    input: &Value,
) -> Result<tools::Prepared, tools::PrepareError> {
    let allowed = t.deps.mcp.allowed;
    if let Some(d) = found {
        let opt_in = toolset::OPT_IN.iter().any(|o| o.name() == d.name());
        if (!t.goal_tools && opt_in) || t.hides_tool(d) {
            return Err(tools::PrepareError::Unknown(name.to_string()));
        }
        let prepared = d.prepare(input, &t.paths)?;
        return agent_allows(t, prepared);
    }
    if t.agent_tools().is_some_and(|a| !a.allows(name)) {
        return Err(tools::PrepareError::Unknown(name.to_string()));
    }
    if let Some(m) = t.mcp_tool(name) {
        return Ok(crate::mcp::adapter::prepare_tool(m, input.clone(), allowed));
    }
    match t.mcp_hub_call(name, input) {
        Some(Ok(h)) => Ok(crate::mcp::adapter::prepare_hub(
            t.deps.mcp.clone(),
            h,
            allowed,
        )),
        Some(Err(e)) => Err(tools::PrepareError::Input(e)),
        None if name.starts_with("mcp_") => {
            Err(tools::PrepareError::McpNotOffered(name.to_string()))
        }
        None => Err(tools::PrepareError::Unknown(name.to_string())),
    }
}

/// A custom agent narrowed to some commands (`Bash(git:*)`): a command of another program is
/// refused before the gate (a narrowing, never a grant: the gate still decides the rest).
fn agent_allows(
    t: &Turn<'_>,
    prepared: tools::Prepared,
) -> Result<tools::Prepared, tools::PrepareError> {
    let (Some(tools), Some((_, analysis))) = (t.agent_tools(), prepared.command.as_ref()) else {
        return Ok(prepared);
    };
    let argvs: Vec<Vec<String>> = analysis.commands.iter().map(|c| c.argv.clone()).collect();
    if analysis.has_control_chars || !tools.allows_command(&argvs) {
        let rules: Vec<String> = tools.shell.iter().map(|r| r.shown()).collect();
        return Err(tools::PrepareError::NotForAgent(format!(
            "this agent runs only these commands: {}",
            rules.join(", ")
        )));
    }
    Ok(prepared)
}

/// Resolve where the call connects (if it does), pass it through the gate, run it.
async fn run_prepared(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &Value,
    prepared: tools::Prepared,
) -> ToolOutput {
    let target = match &prepared.url {
        Some(url) => match crate::net::resolve(url, &t.deps.tools.net_exempt).await {
            Ok(target) => Some(target),
            Err(e) => {
                let deny = crate::protocol::PolicyDecision::Deny;
                audit(t, call, prepared.effect, deny, &e, "unreachable").await;
                return ToolOutput::err("unreachable", e);
            }
        },
        None => None,
    };
    let checked = Gate {
        paths: &prepared.paths,
        command: prepared.command.as_ref(),
        net: target.as_ref().map(|t| &t.usage),
        mcp: prepared.mcp.as_ref(),
    };
    // A `!command` the user typed names what it does: its git-state writes need no question.
    let mut once = HashSet::new();
    if t.run.trigger == crate::protocol::RunTrigger::Command {
        once.insert(crate::policy::GIT_STATE_KEY.to_string());
    }
    // The call's hooks first: a denial ends it, a question asks before the gate decides.
    let before = hooks::before_call(t, call, input).await;
    if let Err(out) = hook_verdict(t, call, input, prepared.effect, &before).await {
        return out;
    }
    if let Err(out) = gate(t, call, input, prepared.effect, checked, once).await {
        return out;
    }
    // The audit trail of an effect is on disk before the effect happens, and so is the
    // snapshot that undoes what it changes.
    if prepared.effect != Effect::Read {
        t.durable().await;
        if changes_files(prepared.effect, prepared.descriptor) {
            // A file tool writes exactly its paths; anything else may change any file.
            let written = (prepared.effect == Effect::Write).then_some(prepared.paths.as_slice());
            t.protect_files(written).await;
        }
    }
    let ctx = ToolCtx {
        paths: &t.paths,
        cancel: &t.run.cancel,
        call_id: &call.id,
        net: target.as_ref(),
        host: t,
        call,
        input,
        effect: prepared.effect,
    };
    // The paths beneath the workspace it reaches (what instructions may apply to).
    let ws = &t.paths.workspace;
    let reached: Vec<std::path::PathBuf> = prepared
        .paths
        .iter()
        .filter(|u| u.inside && u.path.starts_with(ws) && u.path != *ws)
        .map(|u| u.path.clone())
        .collect();
    let mut out = prepared.run(&ctx).await;
    if out.ok && !reached.is_empty() {
        out.text.push_str(&nested_instructions(t, &reached));
    }
    for c in &before.context {
        out.text.push_str(&format!("\n\n[Hook context: {c}]"));
    }
    let after = hooks::after_call(t, call, input, &out).await;
    out.text.push_str(&after);
    out
}

/// What the call's `PreToolUse` hooks said, applied: a denial refuses it (the model reads
/// why); a question asks the user (where none can be asked, refuses it). They never allow.
async fn hook_verdict(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &Value,
    effect: Effect,
    before: &hooks::Before,
) -> Result<(), ToolOutput> {
    let deny = crate::protocol::PolicyDecision::Deny;
    if let Some(why) = &before.deny {
        let why = format!("a hook refused this call: {why}");
        audit(t, call, effect, deny, &why, "hook").await;
        return Err(ToolOutput::err("permission_denied", why));
    }
    if before.ask.is_empty() {
        return Ok(());
    }
    let reason = before.ask.join("; ");
    if !t.interactive || t.never_ask.lock().is_some() {
        let why = format!("{reason} — and no one can be asked here");
        audit(t, call, effect, deny, &why, "hook").await;
        return Err(ToolOutput::err("permission_denied", why));
    }
    let ask = crate::policy::Ask {
        scope: crate::protocol::ApprovalScope::Effect,
        key: "hook".into(),
        // Nothing is kept: a hook's question holds for this call only.
        keys: Vec::new(),
        reason: reason.clone(),
        reasons: before.ask.clone(),
        directory: None,
        warnings: Vec::new(),
        prefix: None,
    };
    audit(
        t,
        call,
        effect,
        crate::protocol::PolicyDecision::Ask,
        &reason,
        "hook",
    )
    .await;
    let answer = ask_user(t, call, input, effect, &ask).await;
    if answer.denied() {
        return Err(denied(&answer));
    }
    Ok(())
}

/// The instruction files (AGENTS.md …) of subdirectories a call reached, each the first time
/// in the session: they go with the call's result, so the model reads them where they apply.
fn nested_instructions(t: &Turn<'_>, reached: &[std::path::PathBuf]) -> String {
    let mut out = String::new();
    for path in reached {
        for dir in crate::instructions::nested_dirs(&t.paths.workspace, path) {
            if !t.instructions_seen.lock().insert(dir.clone()) {
                continue;
            }
            let Some(file) = crate::instructions::in_dir(&dir) else {
                continue;
            };
            // Added in an earlier run of the session: the history holds it.
            let mark = crate::instructions::added_mark(&dir);
            if t.history.lock().results_contain(&mark) {
                continue;
            }
            if let Some(note) = crate::instructions::added_note(&file, &t.paths) {
                out.push_str(&note);
            }
        }
    }
    out
}

/// Whether an allowed call can change the workspace's files (directly, through a process or an
/// outside tool, or through a subagent it starts or instructs): the run's undo snapshot must be
/// stored before it runs.
pub(crate) fn changes_files(effect: Effect, tool: Option<&dyn tools::DynTool>) -> bool {
    matches!(effect, Effect::Write | Effect::Process | Effect::External)
        || tool.is_some_and(|d| d.starts_subagent())
}

/// What the gate checks of a call besides its tool and effect.
#[derive(Clone, Copy)]
pub(crate) struct Gate<'a> {
    pub paths: &'a [policy::PathUse],
    pub command: Option<&'a (String, policy::command::CommandAnalysis)>,
    pub net: Option<&'a policy::NetUse>,
    pub mcp: Option<&'a policy::McpUse>,
}

pub(super) async fn audit(
    t: &Turn<'_>,
    call: &ToolCallReq,
    effect: Effect,
    decision: crate::protocol::PolicyDecision,
    reason: &str,
    key: &str,
) {
    t.emit(EventPayload::PolicyDecision {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        effect,
        decision,
        reason: reason.into(),
        key: key.into(),
    });
}

/// What the gate judges this run's calls by: its agent and mode, the server's switches narrowed
/// by the run's own limits (`tradewind run` through a server), and `grants`.
pub(crate) fn gate_context<'a>(t: &Turn<'_>, grants: &'a HashSet<String>) -> Context<'a> {
    let cfg = &t.deps.cfg;
    let limits = t.run.limits;
    let ceiling = match limits {
        None => cfg.ceiling,
        Some(l) => crate::config::Ceiling {
            write: cfg.ceiling.write && l.write,
            process: cfg.ceiling.process && l.process,
            external: cfg.ceiling.external && l.external,
        },
    };
    Context {
        agent: t.agent,
        mode: crate::tools::ToolHost::mode(t),
        interactive: t.interactive,
        ceiling,
        read_only: cfg.read_only || limits.is_some_and(|l| l.read_only),
        yolo: cfg.yolo && limits.is_none_or(|l| l.yolo),
        grants,
    }
}

/// Ask the gate until it allows or denies; each `ask` waits for the user (or times out → deny).
/// `once`: grants that hold for this call only (already answered).
pub(crate) async fn gate(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &Value,
    effect: Effect,
    checked: Gate<'_>,
    mut once: HashSet<String>,
) -> Result<(), ToolOutput> {
    let Gate {
        paths,
        command,
        net,
        mcp,
    } = checked;
    for _ in 0..8 {
        let mut grants = t.grants.stored(t.deps, t.grant_session()).await;
        grants.extend(once.iter().cloned());
        let ctx = gate_context(t, &grants);
        let proposal = Proposal {
            origin: t.call_origin(),
            tool: &call.name,
            effect,
            paths,
            command: command.map(|(_, a)| a),
            command_text: command.map(|(c, _)| c.as_str()),
            net,
            mcp,
        };
        let decision = policy::decide(&ctx, &proposal);
        match &decision {
            Decision::Allow { reason, key } => {
                audit(t, call, effect, decision.label(), reason, key).await;
                return Ok(());
            }
            Decision::Deny { reason, key } => {
                audit(t, call, effect, decision.label(), reason, key).await;
                return Err(ToolOutput::err("permission_denied", reason));
            }
            Decision::Ask(ask) if t.never_ask.lock().is_some() => {
                let advice = t.never_ask.lock().unwrap_or_default();
                let why = format!("{} — {advice}", ask.reason);
                let deny = crate::protocol::PolicyDecision::Deny;
                audit(t, call, effect, deny, &why, &ask.key).await;
                return Err(ToolOutput::err("permission_denied", why));
            }
            Decision::Ask(ask) => {
                audit(t, call, effect, decision.label(), &ask.reason, &ask.key).await;
                let answer = ask_user(t, call, input, effect, ask).await;
                if answer.denied() {
                    return Err(denied(&answer));
                }
                let d = answer.decision;
                let place = (t.grant_session(), t.run.session.workspace.as_str());
                t.grants.record(t.deps, place, d, ask, &mut once).await;
            }
        }
    }
    Err(ToolOutput::err(
        "permission_denied",
        "too many approval rounds",
    ))
}

/// What the model reads when the user denied its call: with the user's reason, when given.
pub(super) fn denied(answer: &ApprovalAnswer) -> ToolOutput {
    match &answer.reason {
        Some(why) => ToolOutput::err(
            "permission_denied",
            format!(
                "the user denied this call and said: \"{why}\" — do not retry it; follow what they said"
            ),
        ),
        None => ToolOutput::err(
            "permission_denied",
            "the user denied this call; do not retry it, ask or try another way",
        ),
    }
}

pub(super) async fn ask_user(
    t: &Turn<'_>,
    call: &ToolCallReq,
    input: &Value,
    effect: Effect,
    ask: &policy::Ask,
) -> ApprovalAnswer {
    let approvals = &t.deps.prompts.approvals;
    // The call waited on this before the server restarted: the same prompt, waited on again.
    if let Some(p) = approvals.adopt(&t.run.run_id, &call.id, &ask.key) {
        return answer_of(approvals.resume(&t.waiter(), p).await);
    }
    let session_keeps = super::grants::session_keeps(ask);
    let id: crate::protocol::ApprovalId = new_id().into();
    let row = NewApproval {
        id: id.clone(),
        session_id: t.run.session.id.clone(),
        run_id: t.run.run_id.clone(),
        call_id: call.id.clone(),
        tool: call.name.clone(),
        effect,
        scope: ask.scope,
        grant_key: ask.key.clone(),
        input: input.to_string(),
        reason: ask.reason.clone(),
        prefix: ask.prefix.clone(),
        detail: crate::store::ApprovalDetail {
            reasons: ask.reasons.clone(),
            warnings: ask.warnings.clone(),
            directory: ask
                .directory
                .as_ref()
                .map(|d| d.to_string_lossy().into_owned()),
            session_keeps: session_keeps.clone(),
        },
    };
    let event = EventPayload::ApprovalRequested {
        approval_id: id.clone(),
        call_id: call.id.clone(),
        tool: call.name.clone(),
        effect,
        input: input.clone(),
        reason: ask.reason.clone(),
        reasons: ask.reasons.clone(),
        prefix: ask.prefix.clone(),
        scope: ask.scope,
        directory: ask
            .directory
            .as_ref()
            .map(|d| d.to_string_lossy().into_owned()),
        warnings: ask.warnings.clone(),
        session_keeps,
    };
    answer_of(
        approvals
            .ask(&t.waiter(), &id, &ApprovalRequest { row, event })
            .await,
    )
}

/// An approval's answer; none in time is a denial.
fn answer_of(asked: Asked<ApprovalAnswer>) -> ApprovalAnswer {
    match asked {
        Asked::Answered(a) => a,
        Asked::Expired => ApprovalDecision::Deny.into(),
        Asked::Failed(e) => {
            tracing::error!(error = %e, "cannot store approval");
            ApprovalDecision::Deny.into()
        }
    }
}

/// A tool's own question to the user before it does something the gate allows by effect but
/// the user must agree to (a memory every workspace will see): once, for the session, or not.
/// A session grant of `key` answers it; a headless run or a call inside `execute` is refused.
pub(crate) async fn confirm(
    t: &Turn<'_>,
    ctx: &ToolCtx<'_>,
    reason: &str,
    key: &str,
) -> Result<(), ToolOutput> {
    if t.grants
        .stored(t.deps, t.grant_session())
        .await
        .contains(key)
    {
        return Ok(());
    }
    let effect = ctx.effect;
    if !t.interactive || t.never_ask.lock().is_some() {
        let why = format!("{reason}: it needs the user's approval, and none can be asked here");
        audit(
            t,
            ctx.call,
            effect,
            crate::protocol::PolicyDecision::Deny,
            &why,
            key,
        )
        .await;
        return Err(ToolOutput::err("permission_denied", why));
    }
    let ask = one_key_ask(key, reason);
    audit(
        t,
        ctx.call,
        effect,
        crate::protocol::PolicyDecision::Ask,
        reason,
        key,
    )
    .await;
    let answer = ask_user(t, ctx.call, ctx.input, effect, &ask).await;
    let d = match answer.decision {
        ApprovalDecision::Deny => return Err(denied(&answer)),
        // Its one key is the tool's own: "this directory" keeps it like "for this session".
        ApprovalDecision::Directory => ApprovalDecision::Session,
        d => d,
    };
    let place = (t.grant_session(), t.run.session.workspace.as_str());
    t.grants
        .record(t.deps, place, d, &ask, &mut HashSet::new())
        .await;
    Ok(())
}

/// A question about one thing the session may do (`key`, kept as its grant when allowed).
pub(crate) fn one_key_ask(key: &str, reason: &str) -> policy::Ask {
    policy::Ask {
        scope: crate::protocol::ApprovalScope::Effect,
        key: key.to_string(),
        keys: vec![key.to_string()],
        reason: reason.to_string(),
        reasons: vec![reason.to_string()],
        directory: None,
        warnings: Vec::new(),
        prefix: None,
    }
}

/// Ask the user about something the run itself does (not a call of the model's: the
/// provider's own search, a hooks file), named by a `call` of its own; any allowing answer is
/// kept for the session as `key`. Returns whether it was allowed.
pub(crate) async fn ask_for_session(
    t: &Turn<'_>,
    call: &ToolCallReq,
    effect: Effect,
    key: &str,
    reason: &str,
) -> bool {
    let ask = one_key_ask(key, reason);
    audit(
        t,
        call,
        effect,
        crate::protocol::PolicyDecision::Ask,
        reason,
        key,
    )
    .await;
    let input: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    if ask_user(t, call, &input, effect, &ask).await.denied() {
        return false;
    }
    let place = (t.grant_session(), t.run.session.workspace.as_str());
    t.grants
        .record(
            t.deps,
            place,
            ApprovalDecision::Session,
            &ask,
            &mut HashSet::new(),
        )
        .await;
    true
}
