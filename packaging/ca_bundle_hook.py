"""PyInstaller runtime hook, run before server.py in the binary only.

HTTPS RPC endpoints need CA certificates, and the image (FROM scratch) has no system store: the
bundled certifi file is used unless SSL_CERT_FILE names another (a private CA, say). OpenSSL
reads SSL_CERT_FILE when the default context loads its verify paths, as aiohttp's does.
"""

import os
import sys

os.environ.setdefault("SSL_CERT_FILE", os.path.join(sys._MEIPASS, "certifi", "cacert.pem"))
