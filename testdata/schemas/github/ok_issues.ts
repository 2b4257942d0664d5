const issue = await tools.create_issue({ owner: "o", repo: "r", title: "Bug", labels: ["bug"], milestone: 3 });
const names = (issue.labels ?? []).map((l) => l.name + (l.description === null ? "" : ": " + l.description));
const page = await tools.list_issues({ owner: "o", repo: "r", state: "OPEN", perPage: 50 });
const titles = (page.issues ?? []).filter((i) => i.state === "OPEN").map((i) => `#${i.number} ${i.title}`);
const pr = await tools.get_pull_request({ owner: "o", repo: "r", pullNumber: 7 });
console.log(JSON.stringify(pr));
return { url: issue.url, by: issue.user.login, names, titles, more: page.pageInfo.hasNextPage };
