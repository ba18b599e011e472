//! The spend caps in force and the UTC day they count by: below both the agent loop, which
//! checks them before each model call, and the usage service, which reports and sets them.
use crate::config::Config;
use crate::protocol::SpendCaps;
use crate::store::Store;

/// The settings key of caps set through the API (they replace `spend` in config.json).
pub const SETTING_CAPS: &str = "spend_caps";

/// The server-wide caps in force: those set through the API, else config's.
pub async fn effective_caps(store: &Store, cfg: &Config) -> SpendCaps {
    match store.get_setting(SETTING_CAPS).await {
        Ok(Some(v)) => serde_json::from_str(&v).unwrap_or_default(),
        _ => SpendCaps {
            session_usd: cfg.spend.session_usd,
            day_usd: cfg.spend.day_usd,
        },
    }
}

/// The start of the UTC day `at` falls in (Unix ms).
pub fn day_start(at: i64) -> i64 {
    at - at.rem_euclid(86_400_000)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_day_starts_at_utc_midnight() {
        assert_eq!(super::day_start(86_400_000 * 3 + 5), 86_400_000 * 3);
        assert_eq!(super::day_start(0), 0);
    }
}
