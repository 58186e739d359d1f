# The two quick-start commands; scripts/dev.sh installs whatever is missing first.
.PHONY: run test setup
run:
	@bash scripts/dev.sh run
test:
	@bash scripts/dev.sh test
setup:
	@bash scripts/dev.sh setup
