"""The per-stage cache of the sweep: a stage's result is a small JSON file
named by the hash of everything it depends on (the RTL sources, the
parameters, the library, the tools' binaries, the flow's own scripts), so
a point whose inputs are unchanged is not redone, and an interrupted sweep
resumes where it stopped.  Files appear whole or not at all."""
import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_file_sha = {}


def file_sha(path):
    st = os.stat(path)
    k = (path, st.st_size, int(st.st_mtime))
    if k not in _file_sha:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for blk in iter(lambda: fh.read(1 << 20), b""):
                h.update(blk)
        _file_sha[k] = h.hexdigest()
    return _file_sha[k]


def flow_sha(*names):
    """The flow's own files (scripts/area/...) that a stage depends on."""
    return [file_sha(os.path.join(HERE, n)) for n in names]


def key(stage, *parts):
    h = hashlib.sha256(stage.encode())
    h.update(json.dumps(parts, sort_keys=True, default=str).encode())
    return "%s-%s" % (stage, h.hexdigest()[:24])


class Cache:
    def __init__(self, root):
        self.root = root
        os.makedirs(root, exist_ok=True)

    def path(self, k):
        return os.path.join(self.root, k + ".json")

    def get(self, k):
        try:
            with open(self.path(k)) as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return None

    def put(self, k, value):
        p = self.path(k)
        tmp = "%s.tmp%d" % (p, os.getpid())
        with open(tmp, "w") as fh:
            json.dump(value, fh, sort_keys=True)
        os.replace(tmp, p)
        return value
