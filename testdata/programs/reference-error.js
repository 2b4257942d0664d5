// tools: workspace
const data = await fetch("https://example.com");
return data;
