const [web, tav] = await Promise.all([
  tools.brave_web_search({ query: "goja event loop", count: 5, freshness: "pm" }),
  tools["tavily-search"]({ query: "goja", search_depth: "advanced", include_domains: ["github.com"] }),
]);
const urls = web.results.map((r) => r.url + (r.age ?? ""));
const extracted = await tools["tavily-extract"]({ urls: urls.slice(0, 2) });
console.log(web.query?.altered ?? web.query?.original);
return { urls, tav, extracted };
