"""What a user touches: the command line, the HTTP server and its page, the notebook facade, and the runs behind them."""
