"""A real Chromium for the live board's tests: Debian's ``chromium`` package driven by
Playwright (``executable_path``; Playwright's own browser download does not work here).

The browser comes from the OS: when it is missing and the tests run as root (as CI does), it
is installed with ``apt-get`` once (a lock keeps parallel test workers from installing it
twice); otherwise the test fails with what to install. It never skips."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from playwright.async_api import Browser, async_playwright

CHROMIUM = "chromium"
LOCK = Path("/tmp/tholos-chromium-install.lock")
ARGUMENTS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Root needs no sandbox; the rest keep Chromium from calling home on a closed network."""


def chromium_path() -> str:
    """The path of Debian's Chromium, installing it first if it is missing."""
    found = shutil.which(CHROMIUM)
    if found:
        return found
    if os.geteuid() != 0:
        raise RuntimeError(
            "the live board's tests need Chromium: sudo apt-get install chromium "
            "(Debian's package; Playwright's browser download is not used)"
        )
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not shutil.which(CHROMIUM):
            environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            subprocess.run(["apt-get", "update", "-q"], check=True, env=environment)
            subprocess.run(
                ["apt-get", "install", "-y", "-q", CHROMIUM], check=True, env=environment
            )
    found = shutil.which(CHROMIUM)
    if not found:
        raise RuntimeError("apt-get installed chromium, but it is not on the PATH")
    return found


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """A headless Chromium for one test."""
    path = chromium_path()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=path, args=ARGUMENTS)
        try:
            yield browser
        finally:
            await browser.close()
