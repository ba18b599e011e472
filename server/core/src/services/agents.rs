//! The agents a session can run as: the built-ins and the custom ones of the server's
//! workspace (once trusted) and of the user; listed, and trusted as shown.

use super::{Core, ServiceResult};
use crate::agents::Profile;
use crate::protocol::{Agent, AgentInfo, AgentList};

fn builtin(agent: Agent, description: &str) -> AgentInfo {
    AgentInfo {
        name: agent.into(),
        description: description.into(),
        source: "builtin".into(),
        file: None,
        base: agent,
        tools: None,
        commands: Vec::new(),
        mode: None,
        model: None,
        reasoning: None,
        skipped: Vec::new(),
    }
}

fn info(p: &Profile) -> AgentInfo {
    AgentInfo {
        name: p.name.clone(),
        description: p.description.clone(),
        source: p.source.as_str().into(),
        file: Some(p.file.display().to_string()),
        base: p.base,
        tools: p.tools.as_ref().map(|t| t.names.iter().cloned().collect()),
        commands: p
            .tools
            .as_ref()
            .map(|t| t.shell.iter().map(|r| r.shown()).collect())
            .unwrap_or_default(),
        mode: p.mode,
        model: p.model.clone(),
        reasoning: p.reasoning,
        skipped: p.skipped.clone(),
    }
}

impl Core {
    /// The agents a session of the server's workspace can choose, and the files left out.
    pub async fn agents(&self) -> ServiceResult<AgentList> {
        let c = crate::agent::profiles::catalogue(
            &self.store,
            &self.cfg.workspace,
            &self.cfg.state_dir,
        )
        .await;
        let mut data = vec![
            builtin(
                Agent::Build,
                "Reads, writes and runs commands within the session's mode.",
            ),
            builtin(
                Agent::Plan,
                "Read-only: explores and proposes a plan for you to approve.",
            ),
        ];
        data.extend(c.agents.iter().map(info));
        Ok(AgentList {
            data,
            skipped: c.skipped,
            workspace_hash: c.workspace_hash,
            untrusted: c.untrusted,
        })
    }

    /// Trust the workspace's agents as they were shown (`hash`); a change since is refused.
    pub async fn trust_agents(&self, hash: &str) -> ServiceResult<AgentList> {
        let ws = self.cfg.workspace.clone();
        let key = crate::agents::trust_key(&ws);
        super::skills::trust_as_shown(&self.store, &key, hash, "agents", move || {
            crate::agents::workspace_hash(&ws)
        })
        .await?;
        self.agents().await
    }
}
