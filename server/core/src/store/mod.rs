//! Storage: one `Store` over sqlx's `Any` driver, SQLite (embedded default) or PostgreSQL
//! (`DATABASE_URL=postgres://…`). Every query is written once in the shared dialect (`$N`
//! placeholders, `RETURNING`, 64-bit integers, JSON as text); each backend has its own migrations
//! under `migrations/`. SQLite runs in WAL mode with `busy_timeout` and foreign keys on, and every
//! read-then-write transaction starts with `BEGIN IMMEDIATE` so writers never hit
//! `SQLITE_BUSY_SNAPSHOT`.
//!
//! On SQLite the event log has a connection of its own (`Writer`): the group commits behind every
//! run skip the pool (no acquire, no liveness ping on release), and that connection never
//! checkpoints the WAL inside a commit — a task of its own does, off the commit path, at most
//! every `CHECKPOINT_EVERY` after the log was written.

mod approvals;
mod auth;
mod cas;
mod events;
mod goals;
pub mod json;
mod kinds;
mod memories;
mod messages;
mod parts;
mod plans;
mod push;
mod review;
mod runs;
mod search;
mod sessions;
mod tasks;
mod undo;
mod usage;

pub use approvals::*;
pub use auth::*;
pub use events::*;
pub use goals::*;
pub use kinds::*;
pub use memories::*;
pub use messages::*;
pub use parts::{StoredParts, ToolCallReq};
pub use plans::*;
pub use push::*;
pub use review::*;
pub use runs::*;
pub use search::*;
pub use sessions::*;
pub use tasks::*;
pub use undo::*;
pub use usage::*;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sqlx::any::AnyPoolOptions;
use sqlx::{Any, AnyConnection, AnyPool, Connection, Executor, Transaction};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    #[error("{0}")]
    Conflict(String),
    #[error("database busy")]
    Busy,
    /// The disk (or the database's size limit) is full: nothing was written.
    #[error("the disk is full")]
    DiskFull,
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl StoreError {
    /// Name the row an unreadable value came from (`session 01J…: unknown mode `x``).
    pub fn in_row(self, table: &str, id: &str) -> StoreError {
        match self {
            StoreError::Other(e) => StoreError::Other(e.context(format!("{table} {id}"))),
            other => other,
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            sqlx::Error::Database(db) => {
                let code = db.code().map(|c| c.to_string()).unwrap_or_default();
                // SQLite: 5 BUSY, 517 BUSY_SNAPSHOT, 6 LOCKED; Postgres: 55P03 lock_not_available.
                if matches!(code.as_str(), "5" | "517" | "6" | "261" | "55P03")
                    || db.message().contains("database is locked")
                {
                    StoreError::Busy
                } else if matches!(code.as_str(), "13" | "53100")
                    || db.message().contains("database or disk is full")
                {
                    // SQLite 13 SQLITE_FULL; Postgres 53100 disk_full.
                    StoreError::DiskFull
                } else if db.is_unique_violation() {
                    StoreError::Conflict("already exists".into())
                } else {
                    StoreError::Other(anyhow::Error::new(e))
                }
            }
            sqlx::Error::PoolTimedOut => StoreError::Busy,
            _ => StoreError::Other(anyhow::Error::new(e)),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// SQLite only: the event log's own connection.
    writer: Option<Arc<Writer>>,
    /// SQLite only: the database URL, for checks on a connection of their own.
    url: Option<Arc<str>>,
    /// Seals secrets at rest (`put_secret`); the server's key store.
    keys: Option<Arc<crate::keystore::KeyStore>>,
    /// `--disable-plugin`: plugins that stay off whatever the settings say.
    disabled_plugins: Arc<[String]>,
}

/// The event log's SQLite connection, taken out of the pool (`None` once the store is closed;
/// then the pool serves), and the state of its off-path checkpoints.
#[derive(Debug)]
pub(crate) struct Writer {
    pub(crate) conn: tokio::sync::Mutex<Option<AnyConnection>>,
    last_checkpoint: parking_lot::Mutex<Instant>,
    checkpointing: AtomicBool,
}

/// How often, at most, the WAL is checkpointed after the event log was written.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// The SQLite migrations, for checks of a schema made another way.
pub static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/sqlite");
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/postgres");

/// The schema the SQLite migrations make, as one script (`migrations/sqlite-schema.sql`): the
/// final `CREATE` statements, without the intermediate steps (column additions, table rebuilds)
/// that replaying the migrations on an empty file would spend about 5 ms on. Its first line is
/// [`sqlite_schema_stamp`] of the migrations it was made from; a test fails when it drifts and
/// rewrites it with `TRADEWIND_BLESS=1`.
pub const SQLITE_SCHEMA: &str = include_str!("../../../../migrations/sqlite-schema.sql");

/// The first line of a schema snapshot made from these migrations: their count, last version
/// and a digest of their checksums. A snapshot with another stamp is not used.
pub fn sqlite_schema_stamp(migrator: &sqlx::migrate::Migrator) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    let mut last = 0;
    for m in migrator.iter() {
        h.update(m.version.to_le_bytes());
        h.update(&*m.checksum);
        last = m.version;
    }
    let digest = crate::util::hex(&h.finalize()[..12]);
    format!(
        "-- Tradewind's SQLite schema after {} migrations (the last {last}), digest {digest}.",
        migrator.iter().count()
    )
}

/// The schema in an SQLite database as a snapshot script: the stamp, then every table, index,
/// trigger and view with SQL of its own (not SQLite's internal tables, a virtual table's shadow
/// tables or sqlx's `_sqlx_migrations`), in the order they were made.
pub async fn sqlite_schema_snapshot(
    conn: &mut AnyConnection,
    migrator: &sqlx::migrate::Migrator,
) -> Result<String, sqlx::Error> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' \
         AND name <> '_sqlx_migrations' \
         AND name NOT IN (SELECT name FROM pragma_table_list WHERE type = 'shadow') ORDER BY rowid",
    )
    .fetch_all(conn)
    .await?;
    let mut out = sqlite_schema_stamp(migrator);
    out.push_str(
        "\n-- Made by the test `the_sqlite_schema_snapshot_is_what_the_migrations_make` \
         (TRADEWIND_BLESS=1); never edited by hand.\n",
    );
    for (sql,) in rows {
        out.push_str(&sql);
        out.push_str(";\n");
    }
    Ok(out)
}

/// A new SQLite file gets the schema in one transaction — the snapshot when it was made from
/// these migrations, otherwise every migration in turn —, recorded in `_sqlx_migrations`
/// exactly as sqlx records them (same table, versions, descriptions and checksums), so the
/// migrator that runs next finds nothing to do and later versions still apply one by one. One
/// commit instead of two per migration: a fresh start spent about 11 ms on them. A file that
/// holds anything already is left to the migrator.
async fn create_new_sqlite(
    conn: &mut AnyConnection,
    migrator: &sqlx::migrate::Migrator,
) -> Result<(), sqlx::Error> {
    if migrator
        .iter()
        .any(|m| m.no_tx || !m.migration_type.is_up_migration())
    {
        return Ok(());
    }
    let mut tx = Connection::begin_with(conn, "BEGIN IMMEDIATE").await?;
    // Inside the write lock: another process that created it first leaves nothing to do here.
    let (objects,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sqlite_master")
        .fetch_one(&mut *tx)
        .await?;
    if objects != 0 {
        return tx.rollback().await;
    }
    // sqlx's own definition of its table (sqlx-sqlite `ensure_migrations_table`), then every
    // migration, as one script: one trip to SQLite's thread instead of one per statement.
    let mut script = String::from(
        "CREATE TABLE IF NOT EXISTS _sqlx_migrations (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    success BOOLEAN NOT NULL,
    checksum BLOB NOT NULL,
    execution_time BIGINT NOT NULL
);
",
    );
    let stamp = sqlite_schema_stamp(migrator);
    match SQLITE_SCHEMA.split_once('\n') {
        Some((first, rest)) if first == stamp => script.push_str(rest),
        _ => {
            for m in migrator.iter() {
                // On lines of their own: a migration may end in a comment.
                script.push_str(m.sql.as_str());
                script.push_str("\n;\n");
            }
        }
    }
    tx.execute(sqlx::raw_sql(sqlx::AssertSqlSafe(script)))
        .await?;
    let n = migrator.iter().count();
    let rows: Vec<String> = (0..n)
        .map(|i| format!("(${}, ${}, TRUE, ${}, 0)", 3 * i + 1, 3 * i + 2, 3 * i + 3))
        .collect();
    // The placeholders are numbered here; every value is bound.
    let mut insert = sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES {}",
        rows.join(", ")
    )));
    for m in migrator.iter() {
        insert = insert
            .bind(m.version)
            .bind(m.description.to_string())
            .bind(m.checksum.to_vec());
    }
    insert.execute(&mut *tx).await?;
    tx.commit().await
}

/// How long a writer waits for the SQLite write lock before `database_busy`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl Store {
    /// The embedded SQLite database `tradewind.db` in the state directory.
    pub async fn open_sqlite(path: &Path) -> anyhow::Result<Store> {
        let url = format!("sqlite://{}?mode=rwc", path.display());
        Self::connect(&url).await
    }

    /// `sqlite://…` or `postgres://…`. Runs migrations.
    pub async fn connect(url: &str) -> anyhow::Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            anyhow::bail!("unsupported database URL (use sqlite:// or postgres://)");
        };
        let mut opts = AnyPoolOptions::new().acquire_timeout(Duration::from_secs(10));
        if backend == Backend::Sqlite {
            // A local file does not go stale like a network connection: skip the ping that would
            // otherwise cost one extra round trip to SQLite's worker thread on every query.
            opts = opts
                .max_connections(8)
                .test_before_acquire(false)
                .after_connect(|conn, _meta| {
                    Box::pin(async move {
                        conn.execute(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                         PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;",
                        )
                        .await?;
                        Ok(())
                    })
                });
        } else {
            opts = opts.max_connections(16);
        }
        let cannot_open = |e: sqlx::Error| {
            anyhow::anyhow!(
                "cannot open the database: {e}. If the file is corrupt, move it aside (Tradewind never overwrites it)."
            )
        };
        // SQLite's pool opens nothing yet: its first connection is the one below.
        let pool = match backend {
            Backend::Sqlite => opts.connect_lazy(url).map_err(cannot_open)?,
            Backend::Postgres => opts.connect(url).await.map_err(cannot_open)?,
        };
        let migrator = match backend {
            Backend::Sqlite => &SQLITE_MIGRATOR,
            Backend::Postgres => &POSTGRES_MIGRATOR,
        };
        let writer = match backend {
            Backend::Sqlite => {
                // One connection creates or migrates the schema and then becomes the event
                // log's: every connection opened parses the whole schema (and starts a thread),
                // and one handed back to the pool is not there yet for the next acquire.
                let mut conn = pool.acquire().await.map_err(cannot_open)?.detach();
                create_new_sqlite(&mut conn, migrator)
                    .await
                    .map_err(|e| anyhow::anyhow!("database migration failed: {e}"))?;
                migrator
                    .run(&mut conn)
                    .await
                    .map_err(|e| anyhow::anyhow!("database migration failed: {e}"))?;
                // Checkpoints run in `checkpoint_soon`'s task, never inside this connection's
                // commits; the pool's connections keep SQLite's default as a safety net.
                conn.execute("PRAGMA wal_autocheckpoint = 0").await?;
                Some(Arc::new(Writer {
                    conn: tokio::sync::Mutex::new(Some(conn)),
                    last_checkpoint: parking_lot::Mutex::new(Instant::now()),
                    checkpointing: AtomicBool::new(false),
                }))
            }
            Backend::Postgres => {
                migrator
                    .run(&pool)
                    .await
                    .map_err(|e| anyhow::anyhow!("database migration failed: {e}"))?;
                None
            }
        };
        Ok(Store {
            pool,
            backend,
            writer,
            url: (backend == Backend::Sqlite).then(|| Arc::from(url)),
            keys: None,
            disabled_plugins: Arc::from([]),
        })
    }

    /// This store with the key store that seals its secrets.
    pub fn with_keys(mut self, keys: Arc<crate::keystore::KeyStore>) -> Store {
        self.keys = Some(keys);
        self
    }

    /// This store with the plugins `--disable-plugin` keeps off.
    pub fn with_disabled_plugins(mut self, names: &[String]) -> Store {
        self.disabled_plugins = Arc::from(names);
        self
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A transaction that will write: `BEGIN IMMEDIATE` on SQLite, so the write lock is taken up
    /// front and concurrent read-then-write never fails with a stale snapshot.
    pub async fn begin_write(&self) -> StoreResult<Transaction<'static, Any>> {
        let tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        };
        Ok(tx)
    }

    /// `PRAGMA integrity_check` (SQLite) — `ok` when healthy.
    pub async fn integrity_check(&self) -> StoreResult<String> {
        if self.backend != Backend::Sqlite {
            return Ok("ok".into());
        }
        // On a connection of its own: FTS5's check on a pooled connection can compare against
        // index pages it cached before another connection's write (a false "checksum mismatch";
        // the data is intact).
        let Some(url) = &self.url else {
            return Ok("ok".into());
        };
        let mut conn = AnyConnection::connect(url).await?;
        let (s,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&mut conn)
            .await?;
        let _ = conn.close().await;
        Ok(s)
    }

    pub async fn get_setting(&self, key: &str) -> StoreResult<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.0))
    }

    /// A secret setting (an API key), sealed with the key store: never in the database, nor
    /// in a backup, in clear.
    pub async fn put_secret(&self, key: &str, value: &str) -> StoreResult<()> {
        let keys = self.keys.as_ref().ok_or_else(|| {
            StoreError::Other(anyhow::anyhow!("no key store to seal secrets with"))
        })?;
        let sealed = keys
            .seal(key, value.as_bytes())
            .map_err(StoreError::Other)?;
        self.put_setting(key, &sealed).await
    }

    /// A secret setting, opened. One sealed with another key (a backup restored on another
    /// machine) reads as missing, so it is asked for again; one stored in clear by an older
    /// version is sealed now.
    pub async fn get_secret(&self, key: &str) -> StoreResult<Option<String>> {
        let Some(v) = self.get_setting(key).await? else {
            return Ok(None);
        };
        let Some(keys) = &self.keys else {
            return Ok(None);
        };
        match keys.open_sealed(key, &v) {
            Ok(plain) => Ok(String::from_utf8(plain).ok()),
            Err(crate::keystore::OpenError::WrongKey) => {
                tracing::warn!(
                    setting = key,
                    "a saved secret was sealed with another key (a backup from another machine?): enter it again"
                );
                Ok(None)
            }
            // The key store cannot be read or made (logged there): the secret reads as missing.
            Err(crate::keystore::OpenError::NoKey) => Ok(None),
            Err(crate::keystore::OpenError::NotSealed) => {
                if !v.is_empty() {
                    self.put_secret(key, &v).await?;
                }
                Ok(Some(v))
            }
        }
    }

    /// Seal every secret setting still stored in clear (by an older version): at start.
    pub async fn seal_clear_secrets(&self) -> StoreResult<usize> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT key, value FROM settings WHERE key LIKE '%api_key'")
                .fetch_all(&self.pool)
                .await?;
        let mut n = 0;
        for (k, v) in rows {
            if !v.is_empty() && !crate::keystore::KeyStore::is_sealed(&v) {
                self.put_secret(&k, &v).await?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// What a workspace's skill catalogue is read with (its trusted hash, the skills turned off).
    pub async fn skill_choices(
        &self,
        workspace: &std::path::Path,
    ) -> StoreResult<crate::skills::Choices> {
        let [trusted, disabled] = self
            .get_settings([
                &crate::skills::trust_key(workspace),
                &crate::skills::disabled_key(workspace),
            ])
            .await?;
        Ok(crate::skills::Choices::from_settings(
            trusted,
            disabled.as_deref(),
        ))
    }

    /// Several settings in one query, in the order asked (`None`: not set).
    pub async fn get_settings<const N: usize>(
        &self,
        keys: [&str; N],
    ) -> StoreResult<[Option<String>; N]> {
        // Only numbered placeholders are spliced in; every key is bound.
        let marks: Vec<String> = (1..=N).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT key, value FROM settings WHERE key IN ({})",
            marks.join(", ")
        );
        let mut q = sqlx::query_as::<_, (String, String)>(sqlx::AssertSqlSafe(sql));
        for k in keys {
            q = q.bind(k);
        }
        let rows = q.fetch_all(&self.pool).await?;
        Ok(keys.map(|k| {
            rows.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        }))
    }

    /// A workspace's skill catalogue as a session sees it now (read off the runtime's threads).
    pub async fn skill_catalogue(
        &self,
        workspace: &std::path::Path,
        state_dir: &std::path::Path,
    ) -> crate::skills::Catalogue {
        let plugins_key = if crate::plugins::any_installed(state_dir) {
            crate::plugins::ENABLED_KEY
        } else {
            ""
        };
        let [trusted, disabled, plugins] = self
            .get_settings([
                &crate::skills::trust_key(workspace),
                &crate::skills::disabled_key(workspace),
                plugins_key,
            ])
            .await
            .unwrap_or_default();
        let mut choices = crate::skills::Choices::from_settings(trusted, disabled.as_deref());
        let plugins = self.keep_enabled(plugins);
        let (ws, state) = (workspace.to_path_buf(), state_dir.to_path_buf());
        tokio::task::spawn_blocking(move || {
            choices.plugin_dirs = crate::plugins::enabled(&state, plugins.as_deref())
                .into_iter()
                .filter_map(|p| p.skills)
                .collect();
            crate::skills::catalogue(&ws, &state, &choices)
        })
        .await
        .unwrap_or_default()
    }

    /// The enabled plugins' names as stored (a JSON array; `None`: none ever enabled).
    pub async fn plugins_setting(&self) -> Option<String> {
        let s = self
            .get_setting(crate::plugins::ENABLED_KEY)
            .await
            .ok()
            .flatten();
        self.keep_enabled(s)
    }

    /// The enabled plugins' setting without those `--disable-plugin` keeps off.
    pub fn keep_enabled(&self, setting: Option<String>) -> Option<String> {
        let s = setting?;
        if self.disabled_plugins.is_empty() {
            return Some(s);
        }
        let on: Vec<String> = crate::plugins::names(Some(&s))
            .into_iter()
            .filter(|n| !self.disabled_plugins.contains(n))
            .collect();
        serde_json::to_string(&on).ok()
    }

    /// The plugins enabled now, read from their folders.
    pub async fn enabled_plugins(
        &self,
        state_dir: &std::path::Path,
    ) -> Vec<crate::plugins::Plugin> {
        let setting = self.plugins_setting().await;
        if setting.is_none() {
            return Vec::new();
        }
        let state = state_dir.to_path_buf();
        tokio::task::spawn_blocking(move || crate::plugins::enabled(&state, setting.as_deref()))
            .await
            .unwrap_or_default()
    }

    /// The settings whose key starts with `prefix`, by key.
    pub async fn settings_with_prefix(&self, prefix: &str) -> StoreResult<Vec<(String, String)>> {
        let escaped = prefix
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        Ok(sqlx::query_as(
            "SELECT key, value FROM settings WHERE key LIKE $1 ESCAPE '\\' ORDER BY key",
        )
        .bind(format!("{escaped}%"))
        .fetch_all(&self.pool)
        .await?)
    }

    /// Remove a setting; whether there was one.
    pub async fn delete_setting(&self, key: &str) -> StoreResult<bool> {
        let done = sqlx::query("DELETE FROM settings WHERE key = $1")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    pub async fn put_setting(&self, key: &str, value: &str) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn close(&self) {
        if let Some(w) = &self.writer
            && let Some(conn) = w.conn.lock().await.take()
        {
            let _ = conn.close().await;
        }
        self.pool.close().await;
    }

    pub(crate) fn writer(&self) -> Option<&Arc<Writer>> {
        self.writer.as_ref()
    }

    /// After the event log was written: checkpoint the WAL in a task of its own (PASSIVE: it
    /// never blocks a writer), unless one ran less than `CHECKPOINT_EVERY` ago or is running.
    pub(crate) fn checkpoint_soon(&self) {
        let Some(w) = &self.writer else { return };
        {
            let mut last = w.last_checkpoint.lock();
            if last.elapsed() < CHECKPOINT_EVERY || w.checkpointing.swap(true, Ordering::AcqRel) {
                return;
            }
            *last = Instant::now();
        }
        let (pool, w) = (self.pool.clone(), w.clone());
        tokio::spawn(async move {
            if !pool.is_closed()
                && let Err(e) = pool.execute("PRAGMA wal_checkpoint(PASSIVE)").await
            {
                tracing::warn!(error = %e, "WAL checkpoint failed");
            }
            w.checkpointing.store(false, Ordering::Release);
        });
    }
}

/// What `tradewind check` reports.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// `ok`, or SQLite's first integrity problems.
    pub integrity: Vec<String>,
    /// The newest migration applied, and how many the binary knows.
    pub schema_version: i64,
    pub known_migrations: usize,
    pub sessions: i64,
    pub events: i64,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.integrity == ["ok"] && self.schema_version == self.known_migrations as i64
    }
}

impl Store {
    /// An online copy of the SQLite database into `dest`, which is created empty first with
    /// `O_EXCL` and mode 0600 (it holds keys and the password hash), then filled by
    /// `VACUUM INTO` — a consistent snapshot while the server keeps writing.
    pub async fn backup_into(&self, dest: &Path) -> anyhow::Result<()> {
        if self.backend == Backend::Postgres {
            anyhow::bail!(
                "the database is PostgreSQL: back it up with pg_dump (e.g. `pg_dump --format=custom \"$DATABASE_URL\" > tradewind.dump`)"
            );
        }
        {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(dest)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dest.display()))?;
        }
        let path = dest.to_string_lossy().into_owned();
        if let Err(e) = sqlx::query("VACUUM INTO $1")
            .bind(&path)
            .execute(&self.pool)
            .await
        {
            let _ = std::fs::remove_file(dest);
            anyhow::bail!("backup failed: {e}");
        }
        Ok(())
    }

    /// Integrity and schema of the database.
    pub async fn check(&self) -> anyhow::Result<CheckReport> {
        let integrity = match self.backend {
            Backend::Sqlite => {
                let rows: Vec<(String,)> = sqlx::query_as("PRAGMA integrity_check(20)")
                    .fetch_all(&self.pool)
                    .await?;
                rows.into_iter().map(|r| r.0).collect()
            }
            Backend::Postgres => vec!["ok".to_string()],
        };
        let (schema_version,): (i64,) = sqlx::query_as(
            "SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success = TRUE",
        )
        .fetch_one(&self.pool)
        .await?;
        let known_migrations = match self.backend {
            Backend::Sqlite => SQLITE_MIGRATOR.iter().count(),
            Backend::Postgres => POSTGRES_MIGRATOR.iter().count(),
        };
        let (sessions,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions")
            .fetch_one(&self.pool)
            .await?;
        let (events,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM events")
            .fetch_one(&self.pool)
            .await?;
        Ok(CheckReport {
            integrity,
            schema_version,
            known_migrations,
            sessions,
            events,
        })
    }
}
