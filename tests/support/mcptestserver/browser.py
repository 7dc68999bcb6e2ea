"""A browser stand-in for OAuth tests: ``BROWSER="python -I -S .../browser.py %s"``. It fetches the authorize URL
and follows the redirects (to the client's loopback callback), as a browser whose user approves would. Each URL it
is given is appended to the file ``$FAKE_BROWSER_LOG`` names, when set, so a test can see that it ran.
``FAKE_BROWSER_DENY=1``: the user says no; the client's callback gets ``error=access_denied`` instead."""

from __future__ import annotations

import os
import sys
import urllib.parse
import urllib.request


def main() -> int:
    url = sys.argv[1]
    log = os.environ.get("FAKE_BROWSER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(url + "\n")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, never a proxy
    if os.environ.get("FAKE_BROWSER_DENY") == "1":
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        denied = urllib.parse.urlencode({"error": "access_denied", "state": query["state"][0]})
        url = f"{query['redirect_uri'][0]}?{denied}"
    with opener.open(url, timeout=30) as response:
        response.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
