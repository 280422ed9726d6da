export default defineBackground({ type: 'module', main() {} });
