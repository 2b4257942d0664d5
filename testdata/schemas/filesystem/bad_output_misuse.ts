// want: TS2339
// read_text_file returns {content}, not a string.
const text = await tools.read_text_file({ path: "/a" });
return text.length;
