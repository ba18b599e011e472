//! The gate's dry run (`tradewind policy check`, `POST /api/policy/check`): a tool call is
//! prepared exactly as for a run (arguments parsed, paths resolved, the command parsed and
//! classified) and judged by the one gate; nothing is executed.
use serde_json::Value;

use crate::policy::{self, Context, Decision, Proposal};
use crate::protocol::{PolicyCheckReport, PolicyCommand, PolicyDecision, PolicyReason};
use crate::tools::PrepareError;

/// Judge `tool` with `input` under `ctx`, with paths resolved by `paths`; a URL the call would
/// reach is resolved and classified as for a run (`exempt`: the configured origins).
pub async fn check(
    ctx: &Context<'_>,
    tool: &str,
    input: &Value,
    paths: &policy::paths::PathPolicy,
    exempt: &[String],
) -> Result<PolicyCheckReport, PrepareError> {
    let prepared = crate::agent::toolset::prepare(tool, input, paths)?;
    let target = match &prepared.url {
        Some(u) => Some(
            crate::net::resolve(u, exempt)
                .await
                .map_err(PrepareError::Input)?,
        ),
        None => None,
    };
    let command = prepared.command.as_ref();
    let proposal = Proposal {
        origin: crate::policy::Origin::Model,
        tool: prepared.tool,
        effect: prepared.effect,
        paths: &prepared.paths,
        command: command.map(|(_, a)| a),
        command_text: command.map(|(c, _)| c.as_str()),
        net: target.as_ref().map(|t| &t.usage),
        mcp: None,
    };
    let explained = policy::explain(ctx, &proposal);
    let (decision, warnings) = match &explained.decision {
        Decision::Allow { .. } => (PolicyDecision::Allow, Vec::new()),
        Decision::Ask(a) => (PolicyDecision::Ask, a.warnings.clone()),
        Decision::Deny { .. } => (PolicyDecision::Deny, Vec::new()),
    };
    // A command alone: denied with the call when the call is denied outright (removed, hard
    // denied), asks when it has a category that never loosens, else what the effect allows.
    let base = explained
        .reasons
        .iter()
        .filter(|r| matches!(r.code, "removed" | "hard_denied" | "effect"))
        .map(|r| r.verdict)
        .max_by_key(|v| severity(*v))
        .unwrap_or(PolicyDecision::Allow);
    let category_verdict = if ctx.interactive {
        PolicyDecision::Ask
    } else {
        PolicyDecision::Deny
    };
    let commands = command
        .map(|(_, a)| {
            a.commands
                .iter()
                .map(|c| {
                    let categories: Vec<String> =
                        c.dangers.iter().map(|d| d.as_str().to_string()).collect();
                    let own = if categories.is_empty() || ctx.yolo {
                        PolicyDecision::Allow
                    } else {
                        category_verdict
                    };
                    PolicyCommand {
                        argv: c.argv.clone(),
                        effect: prepared.effect,
                        category: categories.first().cloned(),
                        categories,
                        decision: [base, own]
                            .into_iter()
                            .max_by_key(|v| severity(*v))
                            .unwrap_or(PolicyDecision::Allow),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(PolicyCheckReport {
        decision,
        tool: prepared.tool.to_string(),
        effect: prepared.effect,
        reasons: explained
            .reasons
            .iter()
            .map(|r| PolicyReason {
                code: r.code.to_string(),
                message: r.message.clone(),
                decision: r.verdict,
            })
            .collect(),
        categories: command
            .map(|(_, a)| a.dangers.iter().map(|d| d.as_str().to_string()).collect())
            .unwrap_or_default(),
        commands,
        warnings,
    })
}

fn severity(v: PolicyDecision) -> u8 {
    match v {
        PolicyDecision::Allow => 0,
        PolicyDecision::Ask => 1,
        PolicyDecision::Deny => 2,
    }
}

/// The exit status `policy check` uses: 0 allow, 1 ask, 2 deny.
pub fn exit_code(d: PolicyDecision) -> u8 {
    severity(d)
}
