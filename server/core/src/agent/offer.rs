//! The tools a run offers the model: the built-in ones its agent, flags and depth allow (built
//! once per combination), and the MCP servers' as listed now.

use super::*;

/// Built-in tools offered only when the session has skills (they would only cost the prompt).
const SKILL_TOOLS: [&str; 3] = ["skill_load", "skill_resource", "skill_search"];

/// The tools a run may see: a function of the agent, the server's start-up flags, whether the
/// model's provider searches on its side (`websearch.provider: "native"`: no `websearch`) and
/// whether the session has skills — so each combination is built once per server and shared
/// by every run and model call.
pub(super) fn offered_tools(t: &Turn<'_>, has_skills: bool) -> Arc<[provider::ToolSpec]> {
    let c = &t.deps.cfg;
    let native = super::native::chosen(t);
    let key: OfferKey = (
        t.agent,
        t.deps.prompts.interactive,
        c.ceiling,
        c.read_only,
        c.yolo,
        native,
        has_skills,
    );
    let mut built = t.deps.offered.lock();
    if let Some((_, specs)) = built.iter().find(|(k, _)| *k == key) {
        return specs.clone();
    }
    let websearch = <crate::tools::websearch::WebSearch as crate::tools::Tool>::NAME;
    let specs: Arc<[provider::ToolSpec]> = toolset::TOOLS
        .iter()
        .filter(|d| !d.interactive_only() || t.deps.prompts.interactive)
        .filter(|d| d.only_agent().is_none_or(|a| a == t.agent))
        .filter(|d| t.agent != Agent::Plan || d.plan_agent())
        .filter(|d| {
            policy::offered(
                d.effect(),
                t.agent,
                t.deps.prompts.interactive,
                c.ceiling,
                c.read_only,
                c.yolo,
            )
        })
        .filter(|d| !(native && d.name() == websearch))
        .filter(|d| has_skills || !SKILL_TOOLS.contains(&d.name()))
        .filter(|d| !toolset::turned_off(c, d.name()))
        .map(|d| d.spec())
        .collect();
    built.push((key, specs.clone()));
    specs
}

/// The tools of this model call: the built-in ones, then those of the MCP servers connected now
/// (when the agent may call them at all), remembered for the calls that follow.
/// The tools as the model's `promptStyle` describes them (`compact`: first sentences only).
pub(super) fn styled(t: &Turn<'_>, tools: Arc<[provider::ToolSpec]>) -> Arc<[provider::ToolSpec]> {
    match t.model.info.prompt_style {
        crate::models::PromptStyle::Compact => provider::compact_specs(&tools),
        crate::models::PromptStyle::Full => tools,
    }
}

pub(super) fn with_mcp(
    t: &Turn<'_>,
    built_in: &Arc<[provider::ToolSpec]>,
) -> Arc<[provider::ToolSpec]> {
    let c = &t.deps.cfg;
    let hub = &t.deps.mcp;
    let may = policy::offered(
        Effect::External,
        t.agent,
        t.deps.prompts.interactive,
        c.ceiling,
        c.read_only,
        c.yolo,
    ) && (t.deps.prompts.interactive || c.yolo || hub.allowed);
    let mcp = if may { hub.tools() } else { Vec::new() };
    let with_hub = may && hub.has_servers();
    let mcp: Vec<_> = match t.agent_tools() {
        Some(a) => mcp.into_iter().filter(|m| a.allows(&m.name)).collect(),
        None => mcp,
    };
    let with_hub = with_hub && t.agent_tools().is_none();
    let specs = if !with_hub && !t.goal_tools && t.depth() == 0 && t.agent_tools().is_none() {
        built_in.clone()
    } else {
        let goal = toolset::OPT_IN.iter().filter(|_| t.goal_tools);
        built_in
            .iter()
            .filter(|s| !t.hides(&s.name))
            .cloned()
            .chain(goal.map(|d| d.spec()))
            .chain(crate::mcp::hub_specs().into_iter().filter(|_| with_hub))
            .chain(mcp.iter().map(|m| m.spec()))
            .collect()
    };
    *t.mcp_offer.lock() = McpOffer {
        tools: mcp,
        hub: with_hub,
    };
    specs
}
