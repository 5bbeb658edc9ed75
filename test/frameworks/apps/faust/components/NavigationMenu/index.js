export { default as NavigationMenu } from './NavigationMenu';
