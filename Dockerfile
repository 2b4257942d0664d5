# runcode as an MCP server: a static binary on a distroless base.
#
#   docker build -t runcode .
#   docker run -i --rm runcode                                     # MCP over stdio
#   docker run --rm -p 8080:8080 runcode serve --http 0.0.0.0:8080 # streamable HTTP
#   docker run -i --rm -v "$PWD:/workspace:ro" runcode             # workspace tools over your files
#   docker run -i --rm -v "$PWD/tools.json:/tools.json:ro" runcode serve --tools /tools.json
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/runcode ./cmd/runcode

# static: no libc, no shell; nonroot: uid 65532. Worker processes (serve's default
# --isolation process) are the same binary re-executed, so nothing else is needed.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/runcode /usr/local/bin/runcode
WORKDIR /workspace
ENTRYPOINT ["/usr/local/bin/runcode"]
CMD ["serve"]
