//! The one compare-and-set of a row's status: `UPDATE <table> SET status = <to>, … WHERE
//! <key> AND status IN (<from>…)`, every status and value bound (never spliced into the SQL),
//! the statuses named by their enums. A transition that finds the row in none of `from` changes
//! nothing and says so.

use super::{Store, StoreResult};

/// A value a transition also sets.
pub(crate) enum Set {
    Text(Option<String>),
    Int(Option<i64>),
    /// Keep the column's value when this is `None` (`COALESCE`).
    TextOrKeep(Option<String>),
}

pub(crate) struct Transition<'a> {
    pub table: &'static str,
    /// The row's id: it moves only from a `from` status.
    pub id: &'a str,
    pub from: &'a [&'static str],
    pub to: &'static str,
    /// Further columns set with the status (`decided_at`, `answers`, …).
    pub set: Vec<(&'static str, Set)>,
}

impl Store {
    /// Apply a transition; how many rows it moved.
    pub(crate) async fn transition(&self, t: Transition<'_>) -> StoreResult<u64> {
        let mut sql = format!("UPDATE {} SET status = $1", t.table);
        let mut n = 1;
        for (col, v) in &t.set {
            n += 1;
            match v {
                Set::TextOrKeep(_) => sql.push_str(&format!(", {col} = COALESCE(${n}, {col})")),
                Set::Text(_) | Set::Int(_) => sql.push_str(&format!(", {col} = ${n}")),
            }
        }
        n += 1;
        sql.push_str(&format!(" WHERE id = ${n} AND "));
        let placeholders: Vec<String> = (0..t.from.len())
            .map(|i| format!("${}", n + 1 + i))
            .collect();
        sql.push_str(&format!("status IN ({})", placeholders.join(", ")));
        // The table and column names are constants of this crate; every value is bound.
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(t.to);
        for (_, v) in t.set {
            q = match v {
                Set::Text(s) | Set::TextOrKeep(s) => q.bind(s),
                Set::Int(i) => q.bind(i),
            };
        }
        q = q.bind(t.id.to_string());
        for f in t.from {
            q = q.bind(*f);
        }
        Ok(q.execute(self.pool()).await?.rows_affected())
    }
}
