// report interactivity
