// want: TS18047
// labels may be null.
const issue = await tools.create_issue({ owner: "o", repo: "r", title: "t" });
return issue.labels.length;
