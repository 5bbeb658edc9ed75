export { default as ContentWrapper } from './ContentWrapper';
