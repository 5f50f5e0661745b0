"""A render's tokens carry a nonce a CR value cannot guess.  Nonces are drawn from the system's
random source in batches; none is handed out twice, and a forked child process draws its own
rather than the ones left in its parent's batch."""

from __future__ import annotations

import os

from engine.core.templating import tokens


def test_nonces_of_many_renders_are_all_different_and_of_80_bits() -> None:
    nonces = tokens._Nonces(batch=4)
    drawn = [nonces.next() for _ in range(50)]
    assert len(set(drawn)) == len(drawn)
    assert all(len(bytes.fromhex(n)) == tokens.NONCE_BYTES == 10 for n in drawn)


def test_a_forked_child_does_not_draw_the_nonces_its_parent_has_left() -> None:
    nonces = tokens._Nonces(batch=64)
    nonces.next()  # the batch is drawn; 63 are left
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next nonce, to the parent
        os.write(write, nonces.next().encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.waitpid(pid, 0)
    assert child not in {nonces.next() for _ in range(63)}
