package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSchemas is a tool's schemas as the server wrote them.
type rawSchemas struct {
	input, output json.RawMessage
}

// schemaTap wraps a transport so that the schemas of listed tools keep their text:
// the SDK decodes them into maps, which loses the order of their properties, and
// with it the order in which the generated SDK declares them.
type schemaTap struct {
	mcp.Transport
	cn *conn
}

func (t schemaTap) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, cn: t.cn}, nil
}

type tapConn struct {
	mcp.Connection
	cn *conn
}

// Read records the schemas of every tools/list result before the SDK decodes it.
func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil && bytes.Contains(r.Result, []byte(`"tools"`)) {
		var page struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(r.Result, &page) == nil && len(page.Tools) > 0 {
			c.cn.mu.Lock()
			if c.cn.raw == nil {
				c.cn.raw = map[string]rawSchemas{}
			}
			for _, t := range page.Tools {
				c.cn.raw[t.Name] = rawSchemas{input: t.InputSchema, output: t.OutputSchema}
			}
			c.cn.mu.Unlock()
		}
	}
	return msg, err
}
