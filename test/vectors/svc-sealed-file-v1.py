# Makes svc-sealed-file-v1.json: sealed files built from the layout in docs/VAULT.md with Python's
# cryptography package, independently of svc's own code, so the TypeScript module is checked
# against a second implementation of the format. Run: python3 svc-sealed-file-v1.py > svc-sealed-file-v1.json
import json
import struct
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEY = bytes(range(0x40, 0x60))
SEAL_ID = bytes.fromhex("5ea1f11e0123456789abcdef00112233")
PREFIX = bytes.fromhex("a1b2c3d4e5f607")
CHUNK = 1024


def header(chunk):
    magic = bytes([0x89]) + b"SVCSEAL"
    return magic + bytes([1, 1, 0, 0]) + struct.pack(">I", chunk) + SEAL_ID + PREFIX + bytes([0])


def seal(plaintext, chunk):
    head = header(chunk)
    aead = AESGCM(KEY)
    out = [head]
    full = len(plaintext) // chunk
    for i in range(full + 1):
        last = i == full
        piece = plaintext[i * chunk : (i + 1) * chunk] if not last else plaintext[full * chunk :]
        nonce = PREFIX + struct.pack(">I", i) + bytes([1 if last else 0])
        out.append(aead.encrypt(nonce, piece, head))
    return b"".join(out)


def pattern(n):
    return bytes((i * 7 + 3) % 251 for i in range(n))


cases = []
for name, size in [("empty", 0), ("one byte", 1), ("one chunk exactly", CHUNK), ("two chunks and a part", 2 * CHUNK + 452)]:
    plaintext = pattern(size)
    cases.append({"name": name, "plaintext": plaintext.hex(), "sealed": seal(plaintext, CHUNK).hex()})

print(
    json.dumps(
        {
            "source": "Not an external standard: sealed files built by svc-sealed-file-v1.py beside this file from the layout in docs/VAULT.md with Python's cryptography package (AESGCM), not by svc's code. Key, seal id, nonce prefix and plaintexts are made up for the test; hex.",
            "key": KEY.hex(),
            "seal_id": SEAL_ID.hex(),
            "nonce_prefix": PREFIX.hex(),
            "chunk_bytes": CHUNK,
            "cases": cases,
        },
        indent=2,
    )
)
