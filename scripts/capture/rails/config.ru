# A one-file Rails 6.1 API app (Debian ruby-rails) for scripts/capture/rails/capture.py.
# Run: RAILS_ENV=production rackup -s webrick -o 127.0.0.1 -p 8302 config.ru
require "rails"
require "active_model/railtie"
require "action_controller/railtie"

class CaptureApp < Rails::Application
  config.load_defaults 6.1
  config.api_only = true
  config.eager_load = false
  config.secret_key_base = "capture" * 10
  config.logger = ActiveSupport::Logger.new($stderr)
  config.log_level = :info
end

# An ActiveModel model (no database): save is valid?, as ActiveRecord's save returns false on a failed validation.
class Article
  include ActiveModel::Model
  attr_accessor :title, :email, :price

  validates :title, presence: true
  validates :email, presence: true, format: { with: URI::MailTo::EMAIL_REGEXP }
  validates :price, numericality: { greater_than: 0 }

  def save
    valid?
  end

  def to_param
    "1"
  end
end

# POST /articles: the create action of Rails 6.1's API scaffold (railties
# lib/rails/generators/rails/scaffold_controller/templates/api_controller.rb.tt).
class ArticlesController < ActionController::API
  def create
    @article = Article.new(article_params)

    if @article.save
      render json: @article, status: :created
    else
      render json: @article.errors, status: :unprocessable_entity
    end
  end

  private

  def article_params
    params.require(:article).permit(:title, :email, :price)
  end
end

# POST /api/articles: the other common shape, errors wrapped in an "errors" key.
module Api
  class ArticlesController < ::ArticlesController
    def create
      @article = Article.new(article_params)

      if @article.save
        render json: @article, status: :created
      else
        render json: { errors: @article.errors }, status: :unprocessable_entity
      end
    end
  end
end

CaptureApp.initialize!

CaptureApp.routes.draw do
  resources :articles, only: :create
  namespace :api do
    resources :articles, only: :create
  end
end

run CaptureApp
