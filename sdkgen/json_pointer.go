package sdkgen

import (
	"strconv"
	"strings"
)

// pointer resolves a JSON Pointer in URI-fragment form ("#/a/b~1c/0") from root,
// or returns no value.
func pointer(root val, ref string) val {
	if !strings.HasPrefix(ref, "#") {
		return val{}
	}
	frag := ref[1:]
	if strings.Contains(frag, "%") {
		var ok bool
		if frag, ok = percentDecode(frag); !ok {
			return val{}
		}
	}
	if frag == "" {
		return root
	}
	if frag[0] != '/' {
		return val{} // a plain-name anchor, not supported
	}
	n := root
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch n.kind() {
		case 'o':
			n = n.get(seg)
		case 'a':
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= n.len() || seg != strconv.Itoa(i) {
				return val{}
			}
			n = n.at(i)
		default:
			return val{}
		}
		if !n.ok() {
			return val{}
		}
	}
	return n
}

func percentDecode(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}
