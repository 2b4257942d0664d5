package sdkgen

import (
	"encoding/json"

	"github.com/runcode-go/runcode/registry"
)

// Instructions is the fixed instruction block that opens the SDK section
// (docs/run_code.md, "What the model is sent"), ending with "The available tools:". It
// differs from the reference's block where runcode differs: programs may be JavaScript or
// TypeScript, type annotations (and enums) are compiled away rather than limited to
// erasable syntax, and a ToolCallError also carries a code.
const Instructions = "## Writing code for run_code\n" +
	"\n" +
	"`run_code` takes two required arguments: `code` — the body of an async JavaScript or TypeScript function (top-level `await` and `return` work; TypeScript annotations are allowed and stripped before it runs) — and `description`, a short summary of what the program does. Inside the program:\n" +
	"\n" +
	"- Call tools as `await tools.name(args)` — quoted access for exotic names: `tools[\"my-tool\"](args)`. Every call resolves to the tool's typed canonical JSON value. Tool arguments must be lossless JSON.\n" +
	"- A FAILED tool call rejects with `ToolCallError`, whose `toolName` identifies the failed tool, whose `code` says why it failed and whose `message` is human-readable — `try/catch` it to handle and continue.\n" +
	"- Independent read-only calls MAY overlap under `Promise.all` (safe calls run concurrently; mutating calls run alone, in submission order). Sequence dependent work with `await`.\n" +
	"- Emit results with `return` and/or `console.log(...)`. Only what you print or return is program output. A successful tool result containing an image is attached after the run so you can inspect it on the next step; every other intermediate result stays out of the conversation, so extract just what you need.\n" +
	"- Build large strings by pushing parts to an array and calling `join(\"\")` once: `s += part` in a loop copies the whole string on every append.\n" +
	"\n" +
	"The available tools:\n"

// RunCodeDescription is the description of the run_code tool (docs/run_code.md,
// "What the model is sent").
const RunCodeDescription = "Execute a JavaScript or TypeScript program against the available tools. " +
	"Takes two required arguments: `code`, the BODY of an async function (top-level `await` and `return` work; TypeScript annotations are allowed and stripped), " +
	"and `description`, a short summary of what the program does. " +
	"Call tools as `await tools.name(args)` per the declarations in the system prompt. " +
	"Only what you print or return is program output — curate it. " +
	"Image-bearing subtool results are attached after the run."

// RunCodeParameters is the JSON Schema of run_code's arguments (docs/run_code.md,
// "What the model is sent"). Its root is open, as the reference's is.
const RunCodeParameters = `{"type":"object","properties":{` +
	`"code":{"type":"string","description":"The program: the body of an async TypeScript function."},` +
	`"description":{"type":"string","description":"Clear, concise description of what this program does in active voice, 5-10 words (shown in the UI). Examples: \"Count TODO markers across packages\"; \"Read failing test and its fixture\"; \"Rename config key in every cordis.yml\"."}},` +
	`"required":["code","description"]}`

// RunCodeSchema returns run_code as the model receives it.
func RunCodeSchema() registry.ToolSchema {
	return registry.ToolSchema{
		Name:        registry.RunCodeName,
		Description: RunCodeDescription,
		Parameters:  json.RawMessage(RunCodeParameters),
	}
}

// PTCRules is the rule section a ptc-mode prompt carries before the SDK (docs/run_code.md,
// "What the model is sent").
const PTCRules = "`run_code` is the only tool you can call directly — a tool call naming any other tool fails. Reach every tool the SDK declares below from inside the program."

// Rules returns the rule section for a mode: [PTCRules] under ptc, "" otherwise (in
// both mode direct calls do execute).
func Rules(mode registry.Mode) string {
	if mode == registry.ModePTC {
		return PTCRules
	}
	return ""
}
