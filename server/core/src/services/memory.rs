//! The memory panel's calls: list (and search), edit, delete. The agent writes memories with
//! its tools; the user reads and corrects them here.

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{Memory, MemoryList};
use crate::store::MemoryRow;

fn view(m: MemoryRow) -> Memory {
    Memory {
        id: m.id,
        scope: m.scope,
        workspace: m.workspace,
        key: m.key,
        text: m.text,
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

impl Core {
    /// A workspace's memories and the user's, best matches of `q` first (or newest first).
    pub async fn list_memories(
        &self,
        workspace: Option<&str>,
        q: &str,
    ) -> ServiceResult<MemoryList> {
        let ws = workspace.filter(|w| !w.is_empty()).map_or_else(
            || self.cfg.workspace.to_string_lossy().into_owned(),
            str::to_string,
        );
        let rows = self.store.search_memories(&ws, q, 500).await?;
        Ok(MemoryList {
            data: rows.into_iter().map(view).collect(),
        })
    }

    pub async fn edit_memory(
        &self,
        id: &crate::protocol::MemoryId,
        text: &str,
    ) -> ServiceResult<Memory> {
        let t = crate::memory::check_text(text).map_err(ServiceError::Invalid)?;
        if !self.store.update_memory(id, &t).await? {
            return Err(ServiceError::NotFound("memory"));
        }
        let m = self
            .store
            .get_memory(id)
            .await?
            .ok_or(ServiceError::NotFound("memory"))?;
        Ok(view(m))
    }

    pub async fn forget_memory(&self, id: &crate::protocol::MemoryId) -> ServiceResult<()> {
        if !self.store.delete_memory(id).await? {
            return Err(ServiceError::NotFound("memory"));
        }
        Ok(())
    }
}
