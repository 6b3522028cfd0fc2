"""``audit export publish``: push a version's Hugging Face layout
(:mod:`audit.export.hub`) to a dataset repository on the Hub and tag the
commit ``v<version>``, so users pin it by revision
(``load_dataset("ORG/NAME", revision="v1.1")``).

* The folder is pushed only when the version still matches its manifest and
  the database's record (the files are what was exported).
* **Republishing is refused**: when the repository already has the tag
  ``v<version>``, nothing is pushed.  A version is immutable, and so is its
  release.
* The token comes from the ``HF_TOKEN`` environment variable only: never
  from an option (it would stay in the shell history), never from a cached
  login, and it is never written to a file, a log or the database.  Error
  messages are redacted.  ``HF_ENDPOINT`` (read by ``huggingface_hub``)
  points the push at another Hub, e.g. a local stand-in for tests.

A DOI for the tag: connect the Hub repository's mirror on GitHub to Zenodo,
or upload the tagged release to Zenodo (see the how-to on publishing).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from audit._util.redact import redact
from audit.accounts import require_role
from audit.errors import AuditError, InputError, NotFoundError
from audit.export._listing import list_versions
from audit.export._manifest import verify_version
from audit.export.hub import HF_DIR
from audit.export.names import validate_benchmark, validate_version
from audit.store import DbPath, connect

TOKEN_ENV = "HF_TOKEN"
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


@dataclass(frozen=True)
class PublishSummary:
    """What :func:`publish_version` pushed."""

    benchmark: str
    version: str
    repo: str
    tag: str
    commit: str
    files: tuple[str, ...]

    def __str__(self) -> str:
        return (f"published {self.benchmark} {self.version} to dataset {self.repo}: commit {self.commit[:12]}, "
                f"tag {self.tag}, {len(self.files)} files")


def tag_name(version: str) -> str:
    """The tag of a version.

    >>> tag_name("1.1")
    'v1.1'
    """
    return f"v{validate_version(version)}"


def _check_repo(repo: str) -> str:
    """``ORG/NAME`` (letters, digits, ``.``, ``_``, ``-``).

    >>> _check_repo("org/tlue-keys")
    'org/tlue-keys'
    """
    if not isinstance(repo, str) or not _REPO.fullmatch(repo) or ".." in repo:
        raise InputError(f"invalid repository {repo!r}: use ORG/NAME (letters, digits, '.', '_', '-')")
    return repo


def _hf_folder(benchmark: str, version: str, db: DbPath) -> Path:
    versions = list_versions(benchmark, db=db)
    row = versions[versions["version"] == version]
    if row.empty:
        raise NotFoundError(f"'{benchmark}' has no version {version}; see 'audit export list {benchmark}'")
    folder = Path(row.iloc[0]["path"])
    if not folder.is_dir():
        raise NotFoundError(f"{folder}: the files of {benchmark} {version} are no longer on disk")
    problems = verify_version(folder, row.iloc[0]["data_sha256"])
    if problems:
        raise AuditError(f"{folder}: {benchmark} {version} no longer matches its manifest and the database: "
                         f"{problems[0]}; nothing was published")
    hf = folder / HF_DIR
    if not hf.is_dir():
        raise AuditError(f"{benchmark} {version} was exported without the Hugging Face layout ({hf} is missing); "
                         "export a new version to publish it")
    return hf


def publish_version(benchmark: str, version: str, repo: str, *, db: DbPath = None,
                    private: bool = False, actor: str | None = None) -> PublishSummary:
    """Push ``<exports>/<benchmark>/<version>/hf/`` to the dataset
    repository *repo* (created when missing) in one commit and tag it
    ``v<version>``.  The token is ``$HF_TOKEN``; see the module docstring.
    Publishing is for lead reviewers (``actor``, as in
    :func:`audit.export.create_version`)."""
    validate_benchmark(benchmark)
    validate_version(version)
    _check_repo(repo)
    with connect(db) as con:
        require_role(con, actor, "lead", "publishing an export version")
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise InputError(f"publishing needs a Hugging Face token with write access in the environment variable "
                         f"{TOKEN_ENV} (it is read from nowhere else)")
    folder = _hf_folder(benchmark, version, db)
    tag = tag_name(version)
    files = tuple(sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()))
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    # read here, not when huggingface_hub was first imported
    api = HfApi(token=token, endpoint=os.environ.get("HF_ENDPOINT") or None)
    try:
        try:
            refs = api.list_repo_refs(repo, repo_type="dataset")
            tags = {t.name for t in refs.tags}
        except RepositoryNotFoundError:
            tags = set()
        if tag in tags:
            raise AuditError(f"{repo} already has the tag {tag}: version {version} of '{benchmark}' was published "
                             "before; a version is published once (export a new version to publish changes)")
        api.create_repo(repo, repo_type="dataset", exist_ok=True, private=private)
        info = api.upload_folder(folder_path=str(folder), repo_id=repo, repo_type="dataset",
                                 commit_message=f"{benchmark} answer-key version {version}",
                                 commit_description=f"Exported by answer-key-audit: {benchmark} {version}.")
        commit = getattr(info, "oid", None) or str(info)
        api.create_tag(repo, tag=tag, revision=commit, repo_type="dataset",
                       tag_message=f"{benchmark} answer-key version {version}")
    except HfHubHTTPError as exc:
        raise AuditError(redact(f"the Hub refused the push: {exc}").replace(token, "***")) from None
    return PublishSummary(benchmark, version, repo, tag, commit, files)


__all__ = ["TOKEN_ENV", "PublishSummary", "tag_name", "publish_version"]
