# The service as one static binary on an empty root. Build the binary first, then the image:
#   ./scripts/build-binary && docker build -t wallet-positions .
# Keys:  docker run --rm -v wp-state:/state wallet-positions keys create --name NAME
# Serve: docker run -d -p 8000:8000 -v wp-state:/state -e RPC_URL_1=https://... wallet-positions
FROM scratch
COPY dist/image/wallet-positions /wallet-positions
# The binary unpacks itself into /tmp at start; /state holds the keys file and the event index.
COPY dist/image/tmp /tmp
COPY --chown=65532:65532 dist/image/state /state
USER 65532:65532
ENV HOST=0.0.0.0 \
    PORT=8000 \
    STATE_DIR=/state \
    API_KEYS_FILE=/state/keys.env \
    TMPDIR=/tmp
VOLUME ["/state"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/wallet-positions", "healthcheck"]
ENTRYPOINT ["/wallet-positions"]
