// SPDX-License-Identifier: MIT
#include "kernels/common/device_workers.h"

#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compute/core/error.h"

namespace cs::kernels {

void runOnDevices(std::size_t workers, JobControl& job,
                  const std::function<void(std::size_t worker, JobControl& workerJob)>& body) {
    std::vector<std::unique_ptr<JobControl>> jobs;
    for (std::size_t w = 1; w < workers; ++w) {
        jobs.push_back(std::make_unique<JobControl>());
        jobs.back()->setParent(&job);
    }
    std::vector<std::exception_ptr> errors(workers);
    {
        std::vector<std::jthread> threads;
        threads.reserve(workers);
        for (std::size_t w = 1; w < workers; ++w)
            threads.emplace_back([&, w] {
                try {
                    body(w, *jobs[w - 1]);
                } catch (...) {
                    errors[w] = std::current_exception();
                }
            });
        try {
            body(0, job);
        } catch (...) {
            errors[0] = std::current_exception();
        }
    }  // joined
    for (std::size_t w = 1; w < workers; ++w)
        for (const StageTiming& t : jobs[w - 1]->timings())
            job.addTiming(t.name + " (worker " + std::to_string(w) + ")", t.milliseconds);
    std::exception_ptr cancelled;
    for (const std::exception_ptr& error : errors) {
        if (!error) continue;
        try {
            std::rethrow_exception(error);
        } catch (const Cancelled&) {
            if (!cancelled) cancelled = error;
        } catch (...) {
            throw;
        }
    }
    if (cancelled) std::rethrow_exception(cancelled);
}

}  // namespace cs::kernels
