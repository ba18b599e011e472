//! `GET /api/sessions/{id}/files?q=`: the session's workspace files for `@` mentions (see
//! `crate::files`).

use std::path::Path;

use super::{Core, ServiceError, ServiceResult};
use crate::files::MAX_QUERY_CHARS;
use crate::protocol::FileMatches;

impl Core {
    /// Files of the session's workspace matching `q`, best first.
    pub async fn find_files(
        &self,
        session: &crate::protocol::SessionId,
        q: &str,
        limit: usize,
    ) -> ServiceResult<FileMatches> {
        if q.chars().count() > MAX_QUERY_CHARS {
            return Err(ServiceError::Invalid(format!(
                "q is longer than {MAX_QUERY_CHARS} characters"
            )));
        }
        let row = self.load_session(session).await?;
        let paths = self.env.paths.with_workspace(Path::new(&row.workspace));
        self.files
            .find(paths, q, limit)
            .await
            .map_err(|e| ServiceError::Store(crate::store::StoreError::Other(anyhow::anyhow!(e))))
    }
}
