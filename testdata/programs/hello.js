// tools: workspace
console.log("hello from run_code");
return "done";
