//! The session's goal through the API: set, read, pause / resume / edit / raise the budget,
//! delete. The user's alone: no tool of the model reaches these.

use super::{Core, ServiceError, ServiceResult};
use crate::goals::{DEFAULT_MINUTES, DEFAULT_TOKENS, DEFAULT_TURNS, announce, continuation};
use crate::protocol::{
    Agent, Goal, GoalBudget, GoalResume, GoalStatus, PatchGoalParams, RunTrigger, SetGoalParams,
};
use crate::store::GoalRow;
use crate::util::{new_id, now_ms};

fn check_objective(o: &str) -> ServiceResult<String> {
    let t = o.trim();
    if t.is_empty() || o.chars().count() > 4_000 {
        return Err(ServiceError::Invalid(
            "objective must be 1 to 4000 characters, not blank".into(),
        ));
    }
    Ok(t.to_string())
}

/// Apply the parts of a budget given (each checked against its range).
fn apply_budget(g: &mut GoalRow, b: &GoalBudget) -> ServiceResult<()> {
    let check = |v: Option<i64>, lo: i64, hi: i64, what: &str| -> ServiceResult<Option<i64>> {
        match v {
            Some(n) if !(lo..=hi).contains(&n) => Err(ServiceError::Invalid(format!(
                "budget.{what} must be {lo} to {hi}"
            ))),
            other => Ok(other),
        }
    };
    if let Some(n) = check(b.turns, 1, 1_000, "turns")? {
        g.budget_turns = n;
    }
    if let Some(n) = check(b.tokens, 1_000, 100_000_000, "tokens")? {
        g.budget_tokens = n;
    }
    if let Some(n) = check(b.minutes, 1, 1_440, "minutes")? {
        g.budget_minutes = n;
    }
    Ok(())
}

impl Core {
    fn repeats(&self) -> i64 {
        self.cfg.goal.blocked_repeats()
    }

    /// Start the goal's next turn unless the session already has something to do.
    async fn kick_goal(
        &self,
        session: &crate::protocol::SessionId,
        g: &GoalRow,
    ) -> ServiceResult<()> {
        if !self.runs.run_queue().want_idle_turn(session) {
            return Ok(());
        }
        let row = self.load_session(session).await?;
        self.runs
            .enqueue_on(&row, RunTrigger::Goal, &continuation(g))
            .await?;
        Ok(())
    }

    /// Give the session a goal; its first turn starts now (after a run in progress).
    pub async fn set_goal(
        &self,
        session: &crate::protocol::SessionId,
        p: &SetGoalParams,
    ) -> ServiceResult<Goal> {
        let row = self.load_session(session).await?;
        if row.archived {
            return Err(ServiceError::Conflict(
                "the session is archived; unarchive it first".into(),
            ));
        }
        if self.agent_base(&row).await == Agent::Plan {
            return Err(ServiceError::Refused {
                code: "plan_agent",
                message: "the plan agent only plans: switch the session to the build agent to work towards a goal".into(),
            });
        }
        let objective = check_objective(&p.objective)?;
        let now = now_ms();
        let mut g = GoalRow {
            id: new_id().into(),
            session_id: session.into(),
            objective,
            status: GoalStatus::Active,
            budget_turns: DEFAULT_TURNS,
            budget_tokens: DEFAULT_TOKENS,
            budget_minutes: DEFAULT_MINUTES,
            used_turns: 0,
            used_tokens: 0,
            used_ms: 0,
            blocked_streak: 0,
            last_blocked_turn: 0,
            reason: None,
            reports: "[]".into(),
            created_at: now,
            updated_at: now,
        };
        if let Some(b) = &p.budget {
            apply_budget(&mut g, b)?;
        }
        {
            let _held = self.env.tools.goal_lock.lock().await;
            if let Some(old) = self.store.get_goal(session).await?
                && matches!(old.status, GoalStatus::Active | GoalStatus::Paused)
            {
                return Err(ServiceError::Refused {
                    code: "goal_exists",
                    message: "the session already has a goal: edit, pause or delete it first"
                        .into(),
                });
            }
            self.store.insert_goal(&g).await?;
        }
        announce(&self.events, Some(&g), session, self.repeats()).await;
        self.kick_goal(session, &g).await?;
        Ok(g.view(self.repeats()))
    }

    pub async fn get_goal(&self, session: &crate::protocol::SessionId) -> ServiceResult<Goal> {
        self.load_session(session).await?;
        let g = self
            .store
            .get_goal(session)
            .await?
            .ok_or(ServiceError::NotFound("goal"))?;
        Ok(g.view(self.repeats()))
    }

    /// Pause, resume, edit the objective, change the budget (raise it and resume in one call).
    pub async fn patch_goal(
        &self,
        session: &crate::protocol::SessionId,
        p: &PatchGoalParams,
    ) -> ServiceResult<Goal> {
        self.load_session(session).await?;
        let objective = p.objective.as_deref().map(check_objective).transpose()?;
        let (g, resumed) = {
            let _held = self.env.tools.goal_lock.lock().await;
            let mut g = self
                .store
                .get_goal(session)
                .await?
                .ok_or(ServiceError::NotFound("goal"))?;
            if let Some(o) = objective {
                g.objective = o;
            }
            if let Some(b) = &p.budget {
                apply_budget(&mut g, b)?;
            }
            let mut resumed = false;
            match p.status {
                Some(GoalResume::Paused) if g.status == GoalStatus::Active => {
                    g.status = GoalStatus::Paused;
                    g.reason = Some("paused by the user".into());
                }
                Some(GoalResume::Active) if g.status != GoalStatus::Active => {
                    if let Some(what) = g.exhausted() {
                        return Err(ServiceError::Refused {
                            code: "budget_exhausted",
                            message: format!(
                                "the {what} budget is used up: raise it in the same call to resume"
                            ),
                        });
                    }
                    g.status = GoalStatus::Active;
                    g.reason = None;
                    g.blocked_streak = 0;
                    resumed = true;
                }
                _ => {}
            }
            self.store.save_goal(&mut g).await?;
            (g, resumed)
        };
        announce(&self.events, Some(&g), session, self.repeats()).await;
        if resumed {
            self.kick_goal(session, &g).await?;
        }
        Ok(g.view(self.repeats()))
    }

    /// Delete the session's goal (a run in progress finishes; no other starts for it).
    pub async fn delete_goal(&self, session: &crate::protocol::SessionId) -> ServiceResult<()> {
        self.load_session(session).await?;
        let gone = {
            let _held = self.env.tools.goal_lock.lock().await;
            self.store.delete_goal(session).await?
        };
        if !gone {
            return Err(ServiceError::NotFound("goal"));
        }
        announce(&self.events, None, session, self.repeats()).await;
        Ok(())
    }
}
