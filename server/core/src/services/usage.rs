//! Usage and cost: the report over any period, a session's totals and context, spend caps, and
//! `/compact`.

use super::{Core, OrNotFound, ServiceError, ServiceResult};
use crate::protocol::{
    ContextFill, RunTrigger, SessionUsage, SpendCaps, UsageGroupBy, UsageReport, UsageRow,
};
use crate::store::{UsageGroup, UsageTotalsRow};
use crate::util::now_ms;

use crate::usage::{SETTING_CAPS, day_start, effective_caps};

/// `YYYY-MM-DD` of a day number since 1970-01-01 (proleptic Gregorian, UTC).
pub fn day_label(days: i64) -> String {
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn row(r: &UsageTotalsRow, key: String, title: Option<String>) -> UsageRow {
    let usage = r.usage();
    UsageRow {
        key,
        title,
        calls: u64::try_from(r.calls).unwrap_or(0),
        unpriced_calls: u64::try_from(r.unpriced_calls).unwrap_or(0),
        usage,
    }
}

fn check_cap(v: Option<f64>, what: &str) -> ServiceResult<()> {
    match v {
        Some(f) if !(f.is_finite() && (0.0..=1_000_000.0).contains(&f)) => Err(
            ServiceError::Invalid(format!("{what} must be between 0 and 1000000 (USD)")),
        ),
        _ => Ok(()),
    }
}

impl Core {
    /// Usage and cost of the model calls in `[from, to)` (Unix ms; default: the last 30 days),
    /// grouped by session, model or UTC day, optionally of one session.
    pub async fn usage_report(
        &self,
        from: Option<i64>,
        to: Option<i64>,
        group: UsageGroupBy,
        session: Option<&crate::protocol::SessionId>,
    ) -> ServiceResult<UsageReport> {
        let to = to.unwrap_or_else(|| now_ms() + 1);
        let from = from.unwrap_or(to - 30 * 86_400_000);
        // A period that ends before it starts holds nothing.
        let to = to.max(from);
        let g = match group {
            UsageGroupBy::Session => UsageGroup::Session,
            UsageGroupBy::Model => UsageGroup::Model,
            UsageGroupBy::Day => UsageGroup::Day,
        };
        let rows = self.store.usage_report(from, to, g, session).await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let (key, title) = match group {
                UsageGroupBy::Session => {
                    let title = self
                        .store
                        .get_session(&r.key.as_str().into())
                        .await
                        .ok()
                        .map(|s| s.title);
                    (r.key.clone(), title)
                }
                UsageGroupBy::Model => (r.key.clone(), None),
                UsageGroupBy::Day => (day_label(r.key.parse().unwrap_or(0)), None),
            };
            out.push(row(r, key, title));
        }
        let sum = |f: fn(&UsageTotalsRow) -> i64| rows.iter().map(f).sum::<i64>();
        let total = UsageTotalsRow {
            key: "total".into(),
            calls: sum(|r| r.calls),
            input_tokens: sum(|r| r.input_tokens),
            output_tokens: sum(|r| r.output_tokens),
            cached_input_tokens: sum(|r| r.cached_input_tokens),
            reasoning_tokens: sum(|r| r.reasoning_tokens),
            cost_usd: rows.iter().map(|r| r.cost_usd).sum(),
            unpriced_calls: sum(|r| r.unpriced_calls),
        };
        Ok(UsageReport {
            group,
            from,
            to,
            rows: out,
            total: row(&total, "total".into(), None),
        })
    }

    /// A session's usage and cost, the cap that applies to it, and how full its context is.
    pub async fn session_usage(
        &self,
        id: &crate::protocol::SessionId,
    ) -> ServiceResult<SessionUsage> {
        let session = self.store.get_session(id).await.or_not_found("session")?;
        let rows = self
            .store
            .usage_report(0, i64::MAX, UsageGroup::Session, Some(id))
            .await?;
        let totals = rows.first().map_or_else(
            || UsageRow {
                key: id.to_string(),
                title: None,
                calls: 0,
                unpriced_calls: 0,
                usage: crate::protocol::Usage {
                    cost_usd: Some(0.0),
                    ..Default::default()
                },
            },
            |r| row(r, id.to_string(), None),
        );
        let caps = effective_caps(&self.store, &self.cfg).await;
        let (cap, source) = match (session.spend_cap_usd, caps.session_usd) {
            (Some(c), _) => (Some(c), Some("session")),
            (None, Some(c)) => (Some(c), Some("server")),
            (None, None) => (None, None),
        };
        let (_, day) = self.store.spent(id, day_start(now_ms())).await?;
        let context = self.store.last_model_call(id).await?.map(|c| ContextFill {
            model: format!("{}/{}", c.provider, c.model),
            context_tokens: u64::try_from(c.input_tokens + c.output_tokens).unwrap_or(0),
            context_window: u64::try_from(c.context_window).unwrap_or(0),
        });
        let subagents = match self.store.subagent_usage(id).await? {
            (n, Some(r)) if n > 0 => {
                let r = row(&r, "subagents".into(), None);
                Some(crate::protocol::SubagentUsage {
                    sessions: u64::try_from(n).unwrap_or(0),
                    calls: r.calls,
                    unpriced_calls: r.unpriced_calls,
                    usage: r.usage,
                })
            }
            _ => None,
        };
        Ok(SessionUsage {
            subagents,
            session_id: session.id,
            calls: totals.calls,
            unpriced_calls: totals.unpriced_calls,
            usage: totals.usage,
            spend_cap_usd: cap,
            spend_cap_source: source.map(str::to_string),
            day_spent_usd: day,
            day_cap_usd: caps.day_usd,
            context,
        })
    }

    pub async fn spend_caps(&self) -> SpendCaps {
        effective_caps(&self.store, &self.cfg).await
    }

    /// Set the server-wide caps (they replace config's until changed again).
    pub async fn set_spend_caps(&self, caps: SpendCaps) -> ServiceResult<SpendCaps> {
        check_cap(caps.session_usd, "session_usd")?;
        check_cap(caps.day_usd, "day_usd")?;
        let v = serde_json::to_string(&caps)
            .map_err(|e| ServiceError::Invalid(format!("cannot store the caps: {e}")))?;
        self.store.put_setting(SETTING_CAPS, &v).await?;
        Ok(caps)
    }

    /// `/compact`: summarise the session's older turns now (a run of its own, queued like any
    /// other, that makes no answer).
    pub async fn compact_session(
        &self,
        id: &crate::protocol::SessionId,
    ) -> ServiceResult<crate::protocol::RunId> {
        let session = self.load_session(id).await?;
        if session.archived {
            return Err(ServiceError::Conflict(
                "the session is archived; unarchive it first".into(),
            ));
        }
        Ok(self
            .runs
            .enqueue_on(&session, RunTrigger::Compact, "/compact")
            .await?)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn day_labels_are_utc_dates() {
        assert_eq!(super::day_label(0), "1970-01-01");
        assert_eq!(super::day_label(20_423), "2025-12-01");
        assert_eq!(super::day_label(11_016), "2000-02-29");
    }
}
