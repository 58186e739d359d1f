# The two quick-start commands (and the fast tier); scripts/dev.sh installs whatever is missing first.
.PHONY: run test test-fast setup
run:
	@bash scripts/dev.sh run
test:
	@bash scripts/dev.sh test
test-fast:
	@bash scripts/dev.sh test-fast
setup:
	@bash scripts/dev.sh setup
