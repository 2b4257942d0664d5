// want: TS2322
// observations are strings, not a string.
await tools.add_observations({ observations: [{ entityName: "runcode", contents: "one fact" }] });
