export { default as Main } from './Main';
