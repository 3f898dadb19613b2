"""The GPU worker's model cache (the Hugging Face hub cache, a volume in compose), kept under a size budget:
before each load, whole repositories are deleted least recently used first, never the one about to load."""
import logging

log = logging.getLogger(__name__)


def prune(*, max_bytes: int, keep: str) -> list[str]:
    """Delete cached repos (LRU by last access) until the cache fits max_bytes; returns the deleted repo ids."""
    from huggingface_hub import scan_cache_dir

    info = scan_cache_dir()
    size = info.size_on_disk
    deleted = []
    for repo in sorted(info.repos, key=lambda r: r.last_accessed):
        if size <= max_bytes:
            break
        if repo.repo_id == keep:
            continue
        info.delete_revisions(*(rev.commit_hash for rev in repo.revisions)).execute()
        size -= repo.size_on_disk
        deleted.append(repo.repo_id)
    if deleted:
        log.info("model cache: deleted %s to stay under %.1f GB", ", ".join(deleted), max_bytes / 1e9)
    return deleted
